/**
 * @module support/levenshtein
 * Edit distances for "Did you mean ...?" hints: `levenshtein(a, b)` counts the insertions,
 * deletions, substitutions and swaps of two neighbouring characters that turn `a` into `b`;
 * `closestMatch(input, candidates)` is the nearest candidate within a small distance, or undefined.
 */

/** The optimal-string-alignment distance: Levenshtein plus adjacent transpositions (`shwo` → `show` is 1). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  // Three rolling rows: the one before the previous is needed for transpositions.
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      current.push(d)
    }
    before = previous
    previous = current
  }
  return previous[b.length]!
}

/**
 * The candidate nearest to `input` when it is at most `maxDistance` edits away (default: 1 for
 * inputs under 6 characters, else 2), comparing case-insensitively; ties go to the first candidate.
 * An exact match is not a suggestion: undefined.
 */
export function closestMatch(input: string, candidates: Iterable<string>, options: { maxDistance?: number } = {}): string | undefined {
  const max = options.maxDistance ?? (input.length < 6 ? 1 : 2)
  const wanted = input.toLowerCase()
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of candidates) {
    if (candidate === input) continue
    const d = levenshtein(wanted, candidate.toLowerCase())
    if (d <= max && d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}
