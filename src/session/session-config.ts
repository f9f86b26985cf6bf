/**
 * @module session/session-config
 * Reads `config/session.ts` (`export const SESSION = { driver, cookie, lifetime,
 * absolute_lifetime, redis_url, table }`) with the environment (`SESSION_DRIVER`, `REDIS_URL`) and
 * defaults filling what the file leaves out, and rejects bad values with a message naming the key.
 */
import { env } from '../foundation/env.js'
import { FrameworkError } from '../foundation/framework-error.js'
import type { Application } from '../foundation/application.js'

export const SESSION_DRIVERS = ['cookie', 'memory', 'database', 'redis'] as const
export type SessionDriver = (typeof SESSION_DRIVERS)[number]

export interface SessionConfig {
  driver: SessionDriver
  /** Cookie name; default `trowel_session`. */
  cookie: string
  /** Idle lifetime in minutes; default 120. */
  lifetime: number
  /** Absolute lifetime in minutes, however active the session; default 10080 (7 days). */
  absolute_lifetime: number
  /** For the `redis` driver; default `REDIS_URL`, then `redis://127.0.0.1:6379`. */
  redis_url: string
  /** For the `database` driver; default `sessions`. */
  table: string
}

export const SESSION_DEFAULTS = {
  driver: 'cookie',
  cookie: 'trowel_session',
  lifetime: 120,
  absolute_lifetime: 1440 * 7,
  redis_url: 'redis://127.0.0.1:6379',
  table: 'sessions',
} as const satisfies SessionConfig

type ConfigSource = Pick<Application, 'config'>

export function resolveSessionConfig(app: ConfigSource): SessionConfig {
  const raw: Record<string, unknown> = { ...(app.config('session')?.SESSION ?? {}) }
  const pick = (key: string, envName?: string): unknown => {
    const value = raw[key]
    if (value !== undefined && value !== null && value !== '') return value
    return envName === undefined ? undefined : env(envName, undefined)
  }

  const driver = String(pick('driver', 'SESSION_DRIVER') ?? SESSION_DEFAULTS.driver).toLowerCase()
  if (!(SESSION_DRIVERS as readonly string[]).includes(driver)) {
    throw invalid('driver', `"${driver}" is not a session driver; use one of ${SESSION_DRIVERS.join(', ')}`)
  }
  const cookie = String(pick('cookie') ?? SESSION_DEFAULTS.cookie)
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(cookie)) throw invalid('cookie', `"${cookie}" is not a valid cookie name`)

  return {
    driver: driver as SessionDriver,
    cookie,
    lifetime: minutes('lifetime', pick('lifetime') ?? SESSION_DEFAULTS.lifetime),
    absolute_lifetime: minutes('absolute_lifetime', pick('absolute_lifetime') ?? SESSION_DEFAULTS.absolute_lifetime),
    redis_url: String(pick('redis_url', 'REDIS_URL') ?? SESSION_DEFAULTS.redis_url),
    table: String(pick('table') ?? SESSION_DEFAULTS.table),
  }
}

function minutes(key: string, value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) throw invalid(key, `must be a positive number of minutes (got ${String(value)})`)
  return n
}

function invalid(key: string, detail: string): FrameworkError {
  return new FrameworkError('E_SESSION_CONFIG', `config/session.ts: SESSION.${key} ${detail}.`)
}

declare module '../foundation/config-files.js' {
  interface ConfigFiles {
    /** Read and checked by this module. */
    session: { SESSION?: Record<string, unknown> }
  }
}
