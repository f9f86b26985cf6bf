/**
 * @module api/personal-tokens/token-expiry
 * How long a personal access token lives, as people type it:
 * - on the `/account/tokens` form and its JSON twin, `expires` is a number of days (1 to 3660) or
 *   `none`/`never`; a missing or empty `expires` is the default, 90 days, so a token that never
 *   expires is always an explicit choice;
 * - on `craft token:create --expires`, a duration with a unit (`90d`, `12h`, `30m`); a bare number
 *   stays minutes, as it always was.
 * Both return minutes (or null: never) and throw a RangeError on anything else.
 */
import { MAX_EXPIRES_IN } from './repository.js'

/** The form's (and JSON's) lifetime when none is given, in days. */
export const DEFAULT_EXPIRY_DAYS = 90
/** The form's choices, in days (`none`: never). */
export const EXPIRY_CHOICES = ['7', '30', '90', '365', 'none'] as const
/** The words that mean "never expires" on the form and in JSON. */
const NEVER = new Set(['none', 'never'])

const MINUTES_PER_UNIT: Record<string, number> = { d: 24 * 60, h: 60, m: 1 }

/** `expires` of the form or JSON body → minutes, or null for `none`. Throws a RangeError. */
export function formExpiryMinutes(input: unknown): number | null {
  if (input === undefined || input === null || input === '') return DEFAULT_EXPIRY_DAYS * MINUTES_PER_UNIT.d!
  const text = typeof input === 'number' ? String(input) : typeof input === 'string' ? input.trim().toLowerCase() : null
  if (text !== null && NEVER.has(text)) return null
  if (text === null || !/^\d{1,4}$/.test(text)) throw new RangeError('The expiry must be a number of days or "none".')
  const days = Number(text)
  if (days < 1 || days * MINUTES_PER_UNIT.d! > MAX_EXPIRES_IN) throw new RangeError('The expiry must be from 1 day to 10 years.')
  return days * MINUTES_PER_UNIT.d!
}

/**
 * A `--expires` value → minutes: `90d`, `12h`, `30m`, `1.5h`, or a bare number of minutes (`60`,
 * `0.5`). Throws a RangeError that says what is accepted.
 */
export function parseDuration(input: string): number {
  const match = /^(\d+(?:\.\d+)?)([dhm]?)$/i.exec(input.trim())
  const minutes = match ? Number(match[1]) * MINUTES_PER_UNIT[(match[2] || 'm').toLowerCase()]! : NaN
  if (!(minutes > 0) || !Number.isFinite(minutes)) {
    throw new RangeError(`--expires must be a positive duration such as 90d, 12h or 30m (a bare number is minutes), not "${input}".`)
  }
  if (minutes > MAX_EXPIRES_IN) throw new RangeError(`--expires can be at most 10 years (3660d), not "${input}".`)
  return minutes
}
