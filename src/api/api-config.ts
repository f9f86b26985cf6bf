/**
 * @module api/api-config
 * `config/api.ts`, read once and typed: `DRIVERS.<default>` (the `jwt` driver) as the app wrote
 * it, and the JwtService's own settings checked from it. Each API feature reads and checks its own
 * keys of the driver (`options` of its module); this module reads the ones the tokens themselves
 * need (algorithm, secret or keys, model, expiry, version, leeway, previous secrets and keys).
 */
import type { Application } from '../foundation/application.js'
import type { JwtDriverConfig } from './jwt-service.js'
import { ApiConfigError } from './errors.js'

/** One driver of `DRIVERS`, as the app wrote it: each feature reads and checks its own keys. */
export type DriverSettings = Readonly<Record<string, unknown>>

/** `DRIVERS` of config/api.ts. */
interface ApiDrivers {
  readonly default?: unknown
  readonly [name: string]: unknown
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function drivers(app: Application): ApiDrivers | undefined {
  const file = app.config<unknown>('api')
  const value = isRecord(file) ? file.DRIVERS : undefined
  return isRecord(value) ? value : undefined
}

/** The name of the driver in use: `DRIVERS.default`, else `jwt`. */
function driverName(list: ApiDrivers | undefined): string {
  return typeof list?.default === 'string' ? list.default : 'jwt'
}

/** `DRIVERS.<default>`; an empty record when config/api.ts (or the driver) is missing. */
export function driverSettings(app: Application): DriverSettings {
  const list = drivers(app)
  const settings = list?.[driverName(list)]
  return isRecord(settings) ? settings : {}
}

/** `DRIVERS.<default>`, or an ApiConfigError saying what to write. */
function requiredDriver(app: Application): DriverSettings {
  const list = drivers(app)
  if (!list) throw new ApiConfigError('config/api.ts is missing or does not export DRIVERS: run "node craft api:install".')
  const name = driverName(list)
  const settings = list[name]
  if (!isRecord(settings)) throw new ApiConfigError(`config/api.ts: DRIVERS.${name} is missing.`)
  return settings
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : []
}

/** `previous_keys`: an array of PEM strings, or one string of comma-separated PEMs (JWT_PREVIOUS_KEYS). */
function pemList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : []
  return items.filter((x): x is string => typeof x === 'string' && x.trim() !== '')
}

/** The auth model (`GUARDS.web.model` of config/auth.ts), the default of `DRIVERS.jwt.model`. */
function authModel(app: Application): unknown {
  const auth = app.config<unknown>('auth')
  const guards = isRecord(auth) && isRecord(auth.GUARDS) ? auth.GUARDS : undefined
  return guards && isRecord(guards.web) ? guards.web.model : undefined
}

/** The users' model: `DRIVERS.<default>.model`, else `GUARDS.web.model` (undefined when neither is set). */
export function jwtModel(app: Application): unknown {
  return driverSettings(app).model ?? authModel(app)
}

/**
 * The JwtService's settings from `DRIVERS.jwt`, with the model and defaults filled in; the codec
 * checks algorithm, secret, keys, `expires` and `version` once, when the service is made.
 */
export function jwtDriverConfig(app: Application): JwtDriverConfig {
  const config = requiredDriver(app)
  const model = jwtModel(app)
  if (!model) throw new ApiConfigError('config/api.ts: DRIVERS.jwt.model is not set (your User model).')
  return {
    algorithm: (config.algorithm as string | undefined) ?? 'HS512',
    secret: config.secret as string | null | undefined,
    model,
    expires: (config.expires as number | null | undefined) ?? null,
    version: (config.version as number | null | undefined) ?? null,
    authenticates: config.authenticates === true,
    leeway: config.leeway as number | undefined,
    previousSecrets: Array.isArray(config.previous_secrets)
      ? strings(config.previous_secrets).filter((x) => x !== '')
      : (process.env.JWT_PREVIOUS_SECRETS ?? '').split(',').map((x) => x.trim()).filter(Boolean),
    // Asymmetric algorithms (EdDSA, ES256, RS256): the signing key, and old keys that still verify.
    privateKey: (config.private_key ?? config.privateKey ?? process.env.JWT_PRIVATE_KEY) as string | null | undefined,
    previousKeys: pemList(config.previous_keys ?? config.previousKeys ?? process.env.JWT_PREVIOUS_KEYS),
  }
}
