/**
 * @module auth/guards/web/login-token-repository
 * The web guard's server side: one row per device login in `login_tokens`, holding only the
 * SHA-256 of the opaque cookie token. Deleting a row logs that device out; deleting a user's rows
 * logs out every device (password change or reset).
 */
import type { Knex } from 'knex'
import { randomToken, sha256Hex } from '../../tokens/index.js'
import type { DatabaseManager } from '../../../database/database-manager.js'
import { isPlainIdentifier, quoteIdentifier, UNAVAILABLE } from '../../../database/prepared-lookup.js'

export interface LoginTokenOptions {
  table: string
  /** Minutes a login lasts from its creation; null = until logout. */
  lifetime: number | null
  /** Minutes without a request after which a login ends (default 120); null = never. */
  idleTimeout?: number | null
}

/** Where the users live, for `findWithUserNow`'s join. */
export interface UserRowSource {
  table: string
  primaryKey: string
}

/** The login columns `findWithUserNow` reads, first in its rows (the user's columns follow, read by position). */
const JOINED_COLUMNS = ['user_id', 'created_at', 'last_used_at'] as const

/** The prefix of `findWithUser`'s login columns in its rows (beside the user's own columns). */
const JOINED_ALIAS = 'trowel_login__'

/** `last_used_at` is written at most this often per login (or a quarter of the idle timeout), not on every request. */
const TOUCH_EVERY_MS = 60_000

/** A stored date column (Date, text or epoch milliseconds, by driver) in epoch milliseconds; null when empty or not a date. */
export function epochMs(value: unknown): number | null {
  if (value === null || value === undefined) return null
  const ms = new Date(value as string | number | Date).getTime()
  return Number.isFinite(ms) ? ms : null
}

export class LoginTokenRepository {
  readonly #database: () => DatabaseManager
  readonly #options: LoginTokenOptions
  /** `findWithUserNow`'s statement key and SQL for the last users table asked about. */
  #joined: { users: string; primaryKey: string; key: string; sql: string } | undefined

  /** `database`: the app's manager (`app.make('db.manager')`); the logins live on its default connection. */
  constructor(database: () => DatabaseManager, options: LoginTokenOptions) {
    this.#database = database
    this.#options = options
  }

  #db(): Knex {
    return this.#database().connection()
  }

  /** Creates a login and returns the token for the cookie (never stored as is). */
  async create(userId: unknown, meta: { ip?: string; userAgent?: string } = {}): Promise<string> {
    const token = randomToken(32)
    await this.#db()(this.#options.table).insert({
      user_id: userId,
      token_hash: sha256Hex(token),
      ip: meta.ip?.slice(0, 64) ?? null,
      user_agent: meta.userAgent?.slice(0, 255) ?? null,
      created_at: new Date(),
    })
    return token
  }

  /**
   * The user id a token logs in, or null (unknown, revoked, past its lifetime, or idle for longer
   * than the idle timeout). A login in use has its `last_used_at` moved on at most once a minute.
   * `digest`: the token's SHA-256 when the caller already has it (the web guard binds the session
   * to it too), so a request hashes its token once.
   */
  async findUserId(token: string, digest?: string): Promise<unknown | null> {
    if (typeof token !== 'string' || token.length < 20 || token.length > 200) return null
    digest ??= sha256Hex(token)
    // `lookup`, not `findBy`: on SQLite the row is at hand, with no promise to wrap and await.
    const found = this.#database().prepared().lookup(this.#options.table, 'token_hash', digest)
    const row = found instanceof Promise ? await found : found
    if (!row) return null
    const now = Date.now()
    const created = epochMs(row.created_at)
    const lastUsed = epochMs(row.last_used_at) ?? created
    const { lifetime, idleTimeout = 120 } = this.#options
    const expired = created === null || (lifetime !== null && now - created > lifetime * 60_000)
    const idle = idleTimeout !== null && (lastUsed === null || now - lastUsed > idleTimeout * 60_000)
    if (expired || idle) {
      await this.#db()(this.#options.table).where('token_hash', digest).delete()
      return null
    }
    const touchEvery = idleTimeout === null ? TOUCH_EVERY_MS : Math.min(TOUCH_EVERY_MS, (idleTimeout * 60_000) / 4)
    if (lastUsed === null || now - lastUsed > touchEvery) {
      await this.#db()(this.#options.table).where('token_hash', digest).update({ last_used_at: new Date(now) })
    }
    return row.user_id
  }

  /**
   * `findUserId` and the user's row in one statement (the login joined to the users table on its
   * primary key), synchronously on SQLite's kept handle (`PreparedLookup.queryNow`): what every
   * logged-in request needs, for one read instead of two. Only for a login in good standing whose
   * `last_used_at` needs no move; `UNAVAILABLE` otherwise (another driver, a transaction, an
   * unknown token, a login to end or to touch): the caller then takes `findUserId` and reads the
   * user itself, which does the same checks and writes.
   */
  findWithUserNow(digest: string, users: UserRowSource): { userId: unknown; user: Record<string, unknown> } | typeof UNAVAILABLE {
    let joined = this.#joined
    if (joined?.users !== users.table || joined.primaryKey !== users.primaryKey) {
      const table = this.#options.table
      if (!isPlainIdentifier(table) || !isPlainIdentifier(users.table) || !isPlainIdentifier(users.primaryKey)) return UNAVAILABLE
      joined = this.#joined = {
        users: users.table,
        primaryKey: users.primaryKey,
        key: `login-user\u0000${table}\u0000${users.table}\u0000${users.primaryKey}`,
        sql:
          `select ${JOINED_COLUMNS.map((c) => `t."${c}"`).join(', ')}, u.* from ${quoteIdentifier(table)} t ` +
          `join ${quoteIdentifier(users.table)} u on u.${quoteIdentifier(users.primaryKey)} = t."user_id" where t."token_hash" = ? limit 1`,
      }
    }
    const { key, sql } = joined
    const prepared = this.#database().prepared()
    const values = prepared.queryNow(key, sql, digest)
    if (values === UNAVAILABLE || values === undefined) return UNAVAILABLE
    const created = epochMs(values[1])
    const lastUsed = epochMs(values[2]) ?? created
    if (!this.#inGoodStanding(created, lastUsed, Date.now())) return UNAVAILABLE
    const columns = prepared.columnsOf(key)!
    const user: Record<string, unknown> = {}
    for (let i = JOINED_COLUMNS.length; i < values.length; i++) user[columns[i]!] = values[i]
    return { userId: values[0], user }
  }

  /**
   * `findWithUserNow` for the other drivers (PostgreSQL, MySQL): the login and its user in one
   * query, its login columns under aliases no users table has, so one round trip instead of two.
   * Null for an unknown token; `UNAVAILABLE` for a login to end or to touch (or on SQLite, where
   * `findWithUserNow` answers): the caller then takes `findUserId`, which does those writes.
   */
  async findWithUser(digest: string, users: UserRowSource): Promise<{ userId: unknown; user: Record<string, unknown> } | null | typeof UNAVAILABLE> {
    if (this.#database().driver() === 'sqlite') return UNAVAILABLE
    const db = this.#db()
    const aliases = JOINED_COLUMNS.map((c) => [c, `${JOINED_ALIAS}${c}`])
    const result: unknown = await db.raw(
      `select u.*, ${aliases.map(() => 't.?? as ??').join(', ')} from ?? t join ?? u on u.?? = t.?? where t.?? = ? limit 1`,
      [...aliases.flat(), this.#options.table, users.table, users.primaryKey, 'user_id', 'token_hash', digest],
    )
    // node-postgres answers { rows }, mysql2 [rows, fields].
    const rows = (Array.isArray(result) ? result[0] : (result as { rows?: unknown }).rows) as Record<string, unknown>[] | undefined
    const row = rows?.[0]
    if (!row) return null
    const now = Date.now()
    const created = epochMs(row[`${JOINED_ALIAS}created_at`])
    const lastUsed = epochMs(row[`${JOINED_ALIAS}last_used_at`]) ?? created
    if (!this.#inGoodStanding(created, lastUsed, now)) return UNAVAILABLE
    const user: Record<string, unknown> = {}
    for (const key in row) if (!key.startsWith(JOINED_ALIAS)) user[key] = row[key]
    return { userId: row[`${JOINED_ALIAS}user_id`], user }
  }

  /** A login within its lifetime and idle timeout whose `last_used_at` needs no move now. */
  #inGoodStanding(created: number | null, lastUsed: number | null, now: number): boolean {
    const { lifetime, idleTimeout = 120 } = this.#options
    if (created === null || lastUsed === null || (lifetime !== null && now - created > lifetime * 60_000)) return false
    if (idleTimeout !== null && now - lastUsed > idleTimeout * 60_000) return false
    const touchEvery = idleTimeout === null ? TOUCH_EVERY_MS : Math.min(TOUCH_EVERY_MS, (idleTimeout * 60_000) / 4)
    return now - lastUsed <= touchEvery
  }

  /**
   * Gives the login of `token` a new token, in place (its creation time, last use, address and
   * anything else on the row stay, so its lifetime does not restart); the old token logs in no
   * more. Null when that login no longer exists.
   */
  async rotate(token: string): Promise<string | null> {
    const next = randomToken(32)
    const changed = await this.#db()(this.#options.table).where('token_hash', sha256Hex(token)).update({ token_hash: sha256Hex(next) })
    return Number(changed) === 1 ? next : null
  }

  async revoke(token: string): Promise<void> {
    await this.#db()(this.#options.table).where('token_hash', sha256Hex(token)).delete()
  }

  async revokeAll(userId: unknown, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.#db())(this.#options.table).where('user_id', userId as string | number).delete()
  }
}
