/**
 * @module api/personal-tokens/options
 * `DRIVERS.jwt.abilities` of config/api.ts: the app's abilities, offered as checkboxes on the
 * tokens page (and the only ones a token made there may carry); absent or null: any ability name.
 */
import type { DriverSettings } from '../api-config.js'
import { ApiConfigError } from '../errors.js'
import { ABILITY_PATTERN, ALL_ABILITIES } from './abilities.js'

export interface PersonalTokenOptions {
  /** The app's abilities, or null when config/api.ts does not list them. */
  readonly abilities: readonly string[] | null
}

/** Checks `DRIVERS.jwt.abilities` (a list of ability names, or `*`). */
export function personalTokenOptions(settings: DriverSettings): PersonalTokenOptions {
  const list = settings.abilities
  if (list === undefined || list === null) return { abilities: null }
  if (!Array.isArray(list)) throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.abilities must be a list of ability names, got ${JSON.stringify(list)}.`)
  const bad = list.find((x: unknown) => typeof x !== 'string' || (x !== ALL_ABILITIES && !ABILITY_PATTERN.test(x)))
  if (bad !== undefined) throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.abilities: ${JSON.stringify(bad)} is not an ability name (letters, digits and _ . : -).`)
  return { abilities: list as string[] }
}
