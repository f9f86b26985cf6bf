/**
 * @module auth/login-token-repository
 * The web guard's server side: one row per device login in `login_tokens`, holding only the
 * SHA-256 of the opaque cookie token. Deleting a row logs that device out; deleting a user's rows
 * logs out every device (password change or reset).
 */
import type { Knex } from 'knex'
import { randomToken, sha256Hex } from './tokens/index.js'
import { getDatabase } from '../database/database-manager.js'

export interface LoginTokenOptions {
  table: string
  /** Minutes a login lasts from its creation; null = until logout. */
  lifetime: number | null
}

export class LoginTokenRepository {
  readonly #db: () => Knex
  readonly #options: LoginTokenOptions

  constructor(db: () => Knex, options: LoginTokenOptions) {
    this.#db = db
    this.#options = options
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

  /** The user id a token logs in, or null (unknown, revoked or expired). */
  async findUserId(token: string): Promise<unknown | null> {
    if (typeof token !== 'string' || token.length < 20 || token.length > 200) return null
    const row = await getDatabase().prepared().findBy(this.#options.table, 'token_hash', sha256Hex(token))
    if (!row) return null
    if (this.#options.lifetime !== null) {
      const created = new Date(row.created_at as string | number | Date).getTime()
      if (!Number.isFinite(created) || Date.now() - created > this.#options.lifetime * 60_000) {
        await this.revoke(token)
        return null
      }
    }
    return row.user_id
  }

  async revoke(token: string): Promise<void> {
    await this.#db()(this.#options.table).where('token_hash', sha256Hex(token)).delete()
  }

  async revokeAll(userId: unknown, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.#db())(this.#options.table).where('user_id', userId as string | number).delete()
  }
}
