/**
 * @module api/families/options
 * `DRIVERS.jwt.store` of config/api.ts: `'column'` (the default: the user's token column) or
 * `'table'`: per-device token families in `api_tokens`, with `reuse_window` (seconds, default 10,
 * at most 3600) and `max_age` (minutes, default 43200; null: none).
 */
import type { ApiOptionsContext } from '../features/contract.js'
import { ApiConfigError } from '../errors.js'
import type { FamilyOptions } from './token-families.js'

/** The families' settings (the JwtService signs for them); null for the column store. */
export type FamilySettings = Omit<FamilyOptions, 'sign' | 'database'>

export function familyOptions({ app, settings, jwt }: ApiOptionsContext): FamilySettings | null {
  const store = settings.store ?? 'column'
  if (store === 'column') return null
  if (store !== 'table') throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.store must be 'column' or 'table', got ${JSON.stringify(store)}.`)
  const reuseWindow = settings.reuse_window ?? 10
  // At most an hour: auth:prune clears the encrypted successors kept for retries after that.
  if (typeof reuseWindow !== 'number' || !Number.isFinite(reuseWindow) || reuseWindow < 0 || reuseWindow > 3600) {
    throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.reuse_window must be a number of seconds from 0 to 3600, got ${JSON.stringify(reuseWindow)}.`)
  }
  const maxAge = settings.max_age === undefined ? 43200 : settings.max_age
  if (maxAge !== null && (typeof maxAge !== 'number' || !Number.isFinite(maxAge) || maxAge <= 0)) {
    throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.max_age must be a positive number of minutes or null, got ${JSON.stringify(maxAge)}.`)
  }
  const cookies = app.make('cookies')
  return {
    connection: jwt().model?.connection,
    reuseWindow,
    maxAge,
    // A successor is kept encrypted with APP_KEY (AES-256-GCM, bound to this purpose) for the window only.
    sealer: { seal: (value) => cookies.pack('api_tokens.successor', value, 'encrypted'), open: (sealed) => cookies.unpack('api_tokens.successor', sealed) },
  }
}
