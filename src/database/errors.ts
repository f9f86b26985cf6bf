/**
 * @module database/errors
 * The database layer's error catalogue, and `translateDatabaseError`, which turns the raw errors of
 * better-sqlite3, pg and mysql2 into them: a unique-index violation becomes 409 `E_CONFLICT`, a lost
 * or refused connection becomes 503 `E_UNAVAILABLE`; anything else is returned unchanged.
 */
import { FrameworkError } from '../foundation/framework-error.js'
import { HttpError } from '../http/http-error.js'
import { ServiceUnavailableError } from '../http/errors.js'

/**
 * The database cannot be reached (refused, reset, pool timeout, server shutting down).
 * `message` is what an HTTP client may see; `detail` is the one line for logs and the CLI
 * (`Cannot connect to database "postgres" (postgres at 127.0.0.1:5432): connect ECONNREFUSED`).
 */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  readonly detail: string
  constructor(detail: string, options: { cause?: unknown; message?: string } = {}) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause })
    this.detail = detail
  }
}

/** `Model.findOrFail()` found no row. */
export class ModelNotFoundError extends HttpError {
  readonly model: string
  constructor(model: string, options: { cause?: unknown } = {}) {
    super(404, 'E_NOT_FOUND', `${model} not found.`, options)
    this.model = model
  }
}

/**
 * A unique index refused a write (two sign-ups with one e-mail, a replayed token).
 * `column` is set when the driver's error names it; the offending value is never included.
 */
export class UniqueConstraintError extends HttpError {
  readonly column: string | undefined
  constructor(column?: string, options: { cause?: unknown } = {}) {
    super(
      409,
      'E_CONFLICT',
      column ? `A record with this ${column.replace(/_/g, ' ')} already exists.` : 'This record already exists.',
      options,
    )
    this.column = column
  }
}

/** A migration file could not be loaded, applied or undone. `file` is its name without extension. */
export class MigrationError extends FrameworkError {
  readonly file: string
  constructor(file: string, reason: string, options: { cause?: unknown } = {}) {
    super('E_MIGRATION', `Migration "${file}" failed: ${reason}`, options)
    this.name = 'MigrationError'
    this.file = file
  }
}

interface DriverError {
  code?: unknown
  errno?: unknown
  message?: unknown
  detail?: unknown
  constraint?: unknown
  name?: unknown
  errors?: unknown
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
])

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'database connection is not open',
  'Knex: Timeout acquiring a connection',
  'connection is closed',
  // PostgreSQL while a database is closed to connections (ALLOW_CONNECTIONS false), code 55000.
  'is not currently accepting connections',
]

/** The first line of an error's message, without knex's `<sql> - ` prefix. */
export function errorLine(error: unknown): string {
  const e = (error ?? {}) as DriverError
  let message = typeof e.message === 'string' ? e.message : String(error)
  // Node's happy-eyeballs connect() rejects with an AggregateError whose own message is empty.
  if (!message && Array.isArray(e.errors) && e.errors.length > 0) message = errorLine(e.errors[0])
  if (!message && typeof e.code === 'string') message = e.code
  const line = message.split('\n')[0] ?? ''
  const dash = line.lastIndexOf(' - ')
  return (dash >= 0 && /^\s*(select|insert|update|delete|create|alter|drop|with)\b/i.test(line) ? line.slice(dash + 3) : line).trim()
}

function isUnavailable(error: DriverError): boolean {
  if (typeof error.code === 'string' && UNAVAILABLE_CODES.has(error.code)) return true
  if (error.name === 'KnexTimeoutError') return true
  if (Array.isArray(error.errors) && error.errors.some((inner) => isUnavailable((inner ?? {}) as DriverError))) return true
  const message = typeof error.message === 'string' ? error.message : ''
  return UNAVAILABLE_MESSAGES.some((text) => message.includes(text))
}

function uniqueColumn(error: DriverError, table?: string): string | undefined {
  const message = typeof error.message === 'string' ? error.message : ''
  // SQLite: "UNIQUE constraint failed: users.email" (possibly "users.a, users.b").
  // An expression index (users_email_lower_unique on lower(email)): "... failed: index 'name'".
  const sqliteIndex = /UNIQUE constraint failed: index '([^']+)'/.exec(message)
  const sqlite = sqliteIndex ? null : /UNIQUE constraint failed: ([^\s,]+)/.exec(message)
  if (sqlite?.[1]) return sqlite[1].split('.').pop()
  // PostgreSQL: detail "Key (email)=(a@b.c) already exists." or "Key (lower(email::text))=(…)".
  const pg = typeof error.detail === 'string' ? /^Key \((.+?)\)=\(/.exec(error.detail) : null
  if (pg?.[1]) return /^[a-z_]+\("?([A-Za-z0-9_]+)"?(?:::[a-z ]+)?\)$/.exec(pg[1])?.[1] ?? pg[1].replace(/"/g, '')
  // MySQL/MariaDB: "Duplicate entry 'x' for key 'users_email_unique'" (or 'users.users_email_unique').
  const mysql = /for key '(?:[^'.]+\.)?([^']+)'/.exec(message)
  const key = sqliteIndex?.[1] ?? mysql?.[1] ?? (typeof error.constraint === 'string' ? error.constraint : undefined)
  if (key && table) {
    const match = new RegExp(`^${table.replace(/[^A-Za-z0-9_]/g, '')}_(.+?)(?:_lower)?_unique$`).exec(key)
    if (match?.[1]) return match[1]
  }
  return undefined
}

/** True when `error` is a driver's unique-index violation (SQLite, PostgreSQL or MySQL). */
export function isUniqueViolation(error: unknown): boolean {
  const e = (error ?? {}) as DriverError
  return (
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    e.code === '23505' ||
    e.code === 'ER_DUP_ENTRY' ||
    e.errno === 1062
  )
}

/**
 * Maps a driver error to the framework's errors: unique violations → `UniqueConstraintError`
 * (409), lost or refused connections → `DatabaseUnavailableError` (503). Errors that are already
 * `HttpError`s and everything else (syntax errors, NOT NULL violations…) come back unchanged.
 * `context.table` lets the MySQL key name (`users_email_unique`) be turned into its column.
 */
export function translateDatabaseError(error: unknown, context: { table?: string } = {}): unknown {
  if (error instanceof HttpError || error instanceof FrameworkError) return error
  if (typeof error !== 'object' || error === null) return error
  const e = error as DriverError
  if (isUniqueViolation(e)) return new UniqueConstraintError(uniqueColumn(e, context.table), { cause: error })
  if (isUnavailable(e)) return new DatabaseUnavailableError(`Lost the database connection: ${errorLine(error)}`, { cause: error })
  return error
}
