/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for the black-box
 * tests: it throws, naming the line, on anything a Prometheus server would refuse or that
 * breaks the format's rules:
 * - lines are `# HELP`, `# TYPE`, other comments, blank, or samples
 *   `name{label="value",...} value [timestamp]` with valid names and escapes (`\\`, `\"`, `\n`);
 * - values are floats, `NaN` (any case, as Prometheus reads it), `+Inf` or `-Inf`;
 * - a family's `# TYPE` comes once, before its samples, which are contiguous; every sample
 *   belongs to a typed family (a histogram's `_bucket`, `_sum`, `_count`; a summary's `_sum`,
 *   `_count` and quantiles); no two samples share a name and label set;
 * - a histogram's buckets carry `le`, are cumulative, and end with `+Inf` equal to `_count`.
 */
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  type: MetricType
  help?: string
  samples: Sample[]
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])

function parseValue(raw: string, where: string): number {
  // Prometheus reads values with Go's ParseFloat, for which NaN is case-insensitive; prom-client
  // writes "Nan" (the event loop lag mean between two close scrapes).
  if (/^nan$/i.test(raw)) return Number.NaN
  if (raw === '+Inf' || raw === 'Inf') return Number.POSITIVE_INFINITY
  if (raw === '-Inf') return Number.NEGATIVE_INFINITY
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw new Error(`${where}: "${raw}" is not a sample value`)
  return Number(raw)
}

/** Splits `name{labels} value [ts]` into its parts, reading label values with their escapes. */
function parseSample(line: string, where: string): Sample {
  let i = 0
  while (i < line.length && line[i] !== '{' && line[i] !== ' ') i++
  const name = line.slice(0, i)
  if (!METRIC_NAME.test(name)) throw new Error(`${where}: "${name}" is not a metric name`)
  const labels: Record<string, string> = {}
  if (line[i] === '{') {
    i++
    while (line[i] !== '}') {
      const eq = line.indexOf('=', i)
      if (eq === -1) throw new Error(`${where}: a label without "="`)
      const labelName = line.slice(i, eq)
      if (!LABEL_NAME.test(labelName)) throw new Error(`${where}: "${labelName}" is not a label name`)
      if (Object.hasOwn(labels, labelName)) throw new Error(`${where}: label "${labelName}" twice`)
      if (line[eq + 1] !== '"') throw new Error(`${where}: label "${labelName}" has no quoted value`)
      let value = ''
      let j = eq + 2
      for (;;) {
        const c = line[j]
        if (c === undefined) throw new Error(`${where}: unterminated label value`)
        if (c === '"') break
        if (c === '\\') {
          const next = line[j + 1]
          if (next === '\\') value += '\\'
          else if (next === '"') value += '"'
          else if (next === 'n') value += '\n'
          else throw new Error(`${where}: bad escape "\\${next ?? ''}"`)
          j += 2
        } else {
          value += c
          j++
        }
      }
      labels[labelName] = value
      i = j + 1
      if (line[i] === ',') i++
      else if (line[i] !== '}') throw new Error(`${where}: expected "," or "}" after label "${labelName}"`)
    }
    i++
  }
  if (line[i] !== ' ') throw new Error(`${where}: expected a space before the value`)
  const rest = line.slice(i + 1).split(' ')
  if (rest.length < 1 || rest.length > 2 || rest[0] === '') throw new Error(`${where}: expected "value [timestamp]"`)
  const value = parseValue(rest[0]!, where)
  if (rest.length === 2 && !/^-?\d+$/.test(rest[1]!)) throw new Error(`${where}: "${rest[1]}" is not a timestamp`)
  return { name, labels, value }
}

function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  const exact = families.get(sampleName)
  if (exact && exact.type !== 'histogram') return exact
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue
    const family = families.get(sampleName.slice(0, -suffix.length))
    if (family && (family.type === 'histogram' || (family.type === 'summary' && suffix !== '_bucket'))) return family
  }
  return undefined
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>()
  const keyOf = (labels: Record<string, string>) =>
    JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort(([a], [b]) => a.localeCompare(b)))
  for (const s of family.samples) {
    const key = keyOf(s.labels)
    const entry = series.get(key) ?? { buckets: [] }
    series.set(key, entry)
    if (s.name.endsWith('_bucket')) {
      if (s.labels.le === undefined) throw new Error(`${family.name}: a bucket without "le"`)
      entry.buckets.push([parseValue(s.labels.le, family.name), s.value])
    } else if (s.name.endsWith('_count')) entry.count = s.value
  }
  for (const [key, { buckets, count }] of series) {
    if (buckets.length === 0 || buckets.at(-1)![0] !== Number.POSITIVE_INFINITY) throw new Error(`${family.name}${key}: no +Inf bucket last`)
    for (let k = 1; k < buckets.length; k++) {
      if (buckets[k]![0] <= buckets[k - 1]![0]) throw new Error(`${family.name}${key}: bucket bounds out of order`)
      if (buckets[k]![1] < buckets[k - 1]![1]) throw new Error(`${family.name}${key}: buckets are not cumulative`)
    }
    if (count !== buckets.at(-1)![1]) throw new Error(`${family.name}${key}: _count ${count} differs from the +Inf bucket ${buckets.at(-1)![1]}`)
  }
}

/** Parses a scrape; throws on anything malformed. Families by name. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>()
  const seen = new Set<string>()
  const closed = new Set<string>()
  let current: Family | undefined
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  lines.forEach((line, index) => {
    const where = `line ${index + 1} (${line.slice(0, 120)})`
    if (line.trim() === '') return
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line)
      if (!m) return // a plain comment
      const [, kind, name, rest] = m as unknown as [string, 'HELP' | 'TYPE', string, string]
      if (!METRIC_NAME.test(name)) throw new Error(`${where}: "${name}" is not a metric name`)
      if (closed.has(name)) throw new Error(`${where}: family ${name} appears twice`)
      let family = families.get(name)
      if (family && family.samples.length > 0) throw new Error(`${where}: # ${kind} ${name} after its samples`)
      if (!family) {
        family = { name, type: 'untyped', samples: [] }
        families.set(name, family)
      }
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type "${rest}"`)
        if ((family as Family & { typed?: boolean }).typed) throw new Error(`${where}: two # TYPE lines for ${name}`)
        ;(family as Family & { typed?: boolean }).typed = true
        family.type = rest as MetricType
      } else {
        family.help = rest
      }
      if (current && current !== family) closed.add(current.name)
      current = family
      return
    }
    const sample = parseSample(line, where)
    const family = familyOf(sample.name, families)
    if (!family || !(family as Family & { typed?: boolean }).typed) throw new Error(`${where}: sample ${sample.name} has no # TYPE`)
    if (family !== current) {
      if (closed.has(family.name)) throw new Error(`${where}: samples of ${family.name} are not contiguous`)
      if (current) closed.add(current.name)
      current = family
    }
    const key = sample.name + JSON.stringify(Object.entries(sample.labels).sort(([a], [b]) => a.localeCompare(b)))
    if (seen.has(key)) throw new Error(`${where}: duplicate sample ${key}`)
    seen.add(key)
    family.samples.push(sample)
  })
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family)
  return families
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function sumOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = familyOf(name, families)
  if (!family) return 0
  return family.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0)
}
