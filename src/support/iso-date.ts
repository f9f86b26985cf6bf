/**
 * @module support/iso-date
 * `isoDate(date)`: the same string as `date.toISOString()`, made with integer arithmetic. V8's
 * own takes about a microsecond (it goes through the runtime and its date cache); this one a
 * tenth of that, and a JSON response with a model in it formats every date column of every row.
 * Years outside 0000-9999 (written `+YYYYYY`/`-YYYYYY`) and invalid dates are left to V8.
 *
 * The last instants written are kept, by their low bits (a direct-mapped table of 64 slots): the
 * rows a server answers with repeat their dates from request to request (the logged-in user's
 * `created_at`, `updated_at`), and a kept string costs neither the arithmetic nor the copy
 * `JSON.stringify` makes of a freshly concatenated one.
 */

/** Milliseconds of 0000-01-01T00:00:00Z and of 10000-01-01T00:00:00Z. */
const FIRST_MS = -62_167_219_200_000
const END_MS = 253_402_300_800_000

const pad2 = (n: number) => (n < 10 ? '0' : '') + n
const pad3 = (n: number) => (n < 10 ? '00' : n < 100 ? '0' : '') + n
const pad4 = (n: number) => (n < 10 ? '000' : n < 100 ? '00' : n < 1000 ? '0' : '') + n

const SLOTS = 64
const keptMs = new Float64Array(SLOTS).fill(Number.NaN)
const keptText: string[] = new Array<string>(SLOTS).fill('')

/** `date.toISOString()`, faster; throws the same RangeError for an invalid date. */
export function isoDate(date: Date): string {
  const ms = date.getTime()
  if (!(ms >= FIRST_MS && ms < END_MS)) return date.toISOString()
  // `ms` is a whole number; its low 6 bits survive ToInt32's wrap-around, negative ones included.
  const slot = ms & (SLOTS - 1)
  if (keptMs[slot] === ms) return keptText[slot]!
  const text = format(ms)
  keptMs[slot] = ms
  keptText[slot] = text
  return text
}

function format(ms: number): string {
  const dayMs = ((ms % 86_400_000) + 86_400_000) % 86_400_000
  const days = (ms - dayMs) / 86_400_000
  // Civil date from days since 1970-01-01 (proleptic Gregorian; eras of 400 years from 0000-03-01).
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0)
  const seconds = Math.floor(dayMs / 1000)
  return (
    `${pad4(year)}-${pad2(month)}-${pad2(day)}T${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:` +
    `${pad2(seconds % 60)}.${pad3(dayMs % 1000)}Z`
  )
}
