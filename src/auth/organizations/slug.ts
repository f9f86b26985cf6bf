/**
 * @module auth/organizations/slug
 * An organisation's slug: its name lower-cased, diacritics removed, every other run of characters
 * replaced by `-`, trimmed of `-`, at most 48 characters; `org` when nothing is left. `uniqueSlug`
 * adds `-2`, `-3`, … on a collision (a rename keeps the slug: it is never recomputed).
 */

/** The longest slug, suffix included. */
export const SLUG_MAX = 48

/** A well-formed slug (what `@slug` and `X-Organization` must look like before any look-up). */
export const SLUG_SHAPE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/**
 * @example
 * slugify('Café Société') // 'cafe-societe'
 * slugify('  ***  ')      // 'org'
 */
export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/, '')
  return base === '' ? 'org' : base
}

/** `base` with `-n` appended (the base shortened so the whole stays within SLUG_MAX). */
export function withSuffix(base: string, n: number): string {
  if (n < 2) return base
  const suffix = `-${n}`
  const head = base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, '')
  return `${head === '' ? 'org' : head}${suffix}`
}

/**
 * The first of `base`, `base-2`, `base-3`, … that `taken` does not hold. `taken` is the set of
 * existing slugs starting with the base's head (one query by the caller).
 */
export function uniqueSlug(base: string, taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    const candidate = withSuffix(base, n)
    if (!taken.has(candidate)) return candidate
  }
}
