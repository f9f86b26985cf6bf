/**
 * @module api/personal-tokens/abilities
 * Abilities: the names a personal access token is allowed to use (`posts:read`, `posts:write`),
 * checked by the `ability:<name>` middleware. `*` grants every ability; a JWT from the token
 * route carries `*`. A token created without abilities has none: it can call the API routes that
 * ask for no ability, and no others.
 */
import { ForbiddenError } from '../../http/errors.js'

/** Every ability (what a JWT carries). */
export const ALL_ABILITIES = '*'
/** An ability name: letters, digits and `_ . : -`, at most 64 characters. */
export const ABILITY_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/
export const MAX_ABILITIES = 50

/** A token without `ability` (403 `E_FORBIDDEN`, RFC 6750 `insufficient_scope` naming it). */
export class InsufficientScopeError extends ForbiddenError {
  readonly ability: string
  constructor(ability: string) {
    super('This token does not have the ability this route needs.', {
      headers: { 'WWW-Authenticate': `Bearer realm="api", error="insufficient_scope", scope="${ability}"` },
    })
    this.ability = ability
  }
}

/** Whether `granted` covers `ability` (`*` covers all). */
export function can(granted: readonly string[], ability: string): boolean {
  return granted.includes(ALL_ABILITIES) || granted.includes(ability)
}

/** The first of `needed` that `granted` lacks, or null when it has them all. */
export function firstMissing(granted: readonly string[], needed: readonly string[]): string | null {
  for (const ability of needed) if (!can(granted, ability)) return ability
  return null
}

/**
 * Abilities as given (an array, or a comma/space separated string): trimmed, de-duplicated,
 * sorted. Throws a RangeError naming the first invalid one.
 */
export function normalizeAbilities(input: unknown): string[] {
  if (input === undefined || input === null || input === '') return []
  const list = typeof input === 'string' ? input.split(/[\s,]+/) : Array.isArray(input) ? input : null
  if (!list) throw new RangeError('Abilities must be a list of names.')
  const out = new Set<string>()
  for (const raw of list) {
    if (typeof raw !== 'string') throw new RangeError('Abilities must be a list of names.')
    const name = raw.trim()
    if (name === '') continue
    if (name !== ALL_ABILITIES && !ABILITY_PATTERN.test(name)) {
      throw new RangeError(`"${name.slice(0, 70)}" is not an ability name (letters, digits and _ . : -, at most 64 characters; or * for all).`)
    }
    out.add(name)
  }
  if (out.size > MAX_ABILITIES) throw new RangeError(`At most ${MAX_ABILITIES} abilities.`)
  return [...out].sort()
}

/** The stored JSON text of the `abilities` column, read back (anything odd: none). */
export function parseStoredAbilities(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((x): x is string => typeof x === 'string')
  if (typeof value !== 'string' || value === '') return []
  try {
    const parsed = JSON.parse(value)
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : []
  } catch {
    return []
  }
}
