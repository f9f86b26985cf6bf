/**
 * @module mail/mail-config
 * Reads `config/mail.ts` (`export const MAIL = { driver, from, from_name, host, port, username,
 * password, secure, tls_reject_unauthorized, log_path }`); keys it leaves out come from the
 * environment (`MAIL_DRIVER`, `MAIL_FROM_ADDRESS`, `MAIL_FROM_NAME`, `MAIL_HOST`, `MAIL_PORT`,
 * `MAIL_USERNAME`, `MAIL_PASSWORD`, `MAIL_SECURE`, `MAIL_TLS_REJECT_UNAUTHORIZED`), then defaults.
 */
import { env } from '../foundation/env.js'
import { FrameworkError } from '../foundation/framework-error.js'
import type { Application } from '../foundation/application.js'

export const MAIL_DRIVERS = ['smtp', 'terminal', 'log'] as const
export type MailDriver = (typeof MAIL_DRIVERS)[number]

export interface MailConfig {
  driver: MailDriver
  from: string
  from_name?: string
  host: string
  port: number
  username?: string
  password?: string
  /** Implicit TLS; default: port 465. STARTTLS is used on other ports whenever offered. */
  secure?: boolean
  tls_reject_unauthorized: boolean
  /** For the `log` driver; default `storage/logs/mail.log` in the app. */
  log_path: string
}

type ConfigApp = Pick<Application, 'config' | 'path'>

export function resolveMailConfig(app: ConfigApp, overrides: Partial<MailConfig> = {}): MailConfig {
  const raw: Record<string, unknown> = { ...(app.config('mail')?.MAIL ?? {}), ...overrides }
  const pick = (key: string, envName?: string): unknown => {
    const value = raw[key]
    if (value !== undefined && value !== null && value !== '') return value
    return envName === undefined ? undefined : env(envName, undefined)
  }
  const text = (value: unknown): string | undefined => (value === undefined || value === null || value === false ? undefined : String(value))

  const driver = String(pick('driver', 'MAIL_DRIVER') ?? 'terminal').toLowerCase()
  if (!(MAIL_DRIVERS as readonly string[]).includes(driver)) {
    throw invalid('driver', `"${driver}" is not a mail driver; use one of ${MAIL_DRIVERS.join(', ')}`)
  }
  const port = Number(pick('port', 'MAIL_PORT') ?? 587)
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw invalid('port', `must be a TCP port (got ${String(pick('port', 'MAIL_PORT'))})`)
  const secure = pick('secure', 'MAIL_SECURE')
  const reject = pick('tls_reject_unauthorized', 'MAIL_TLS_REJECT_UNAUTHORIZED')

  return {
    driver: driver as MailDriver,
    from: text(pick('from', 'MAIL_FROM_ADDRESS')) ?? 'no-reply@localhost',
    from_name: text(pick('from_name', 'MAIL_FROM_NAME')),
    host: text(pick('host', 'MAIL_HOST')) ?? '127.0.0.1',
    port,
    username: text(pick('username', 'MAIL_USERNAME')),
    password: text(pick('password', 'MAIL_PASSWORD')),
    secure: secure === undefined ? undefined : toBoolean(secure),
    tls_reject_unauthorized: reject === undefined ? true : toBoolean(reject),
    log_path: text(pick('log_path')) ?? app.path('storage', 'logs', 'mail.log'),
  }
}

function toBoolean(value: unknown): boolean {
  if (typeof value === 'boolean') return value
  return !['false', '0', 'no', 'off', ''].includes(String(value).trim().toLowerCase())
}

function invalid(key: string, detail: string): FrameworkError {
  return new FrameworkError('E_MAIL_CONFIG', `config/mail.ts: MAIL.${key} ${detail}.`)
}

declare module '../foundation/config-files.js' {
  interface ConfigFiles {
    /** Read and checked by this module. */
    mail: { MAIL?: Record<string, unknown> }
  }
}
