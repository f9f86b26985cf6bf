/**
 * @module auth/accounts/user-tokens
 * The single-use links mailed to a user (`user_tokens`): e-mail verification (`verify_email`,
 * carrying the address being verified) and "This wasn't me" (`secure`, carrying the address the
 * notice went to and, in `details`, the event's time and the item it reported). A token is 32 random
 * bytes (base64url) that only the e-mail holds; the table keeps its SHA-256. `consume()` deletes
 * the row and only the request whose delete removed it gets it, so a link works exactly once
 * however many requests present it at the same moment, in however many processes.
 */
import type { Knex } from 'knex'
import { MigratedTables } from '../inventory/migrated-tables.js'
import { randomToken, sha256Hex } from '../tokens/index.js'

/**
 * The purposes of `user_tokens` rows made here, as keys: a feature adds its own by augmenting
 * this interface (`declare module '.../accounts/user-tokens.js'`).
 */
export interface UserTokenPurposes {
  /** A link verifying the address in `email`. */
  verify_email: true
  /** A "This wasn't me" link. */
  secure: true
}

export type UserTokenPurpose = keyof UserTokenPurposes

export interface UserTokenRow {
  id: number
  user_id: unknown
  purpose: UserTokenPurpose
  email: string | null
  expires_at: Date
  /** What the link was made for (JSON text; a "This wasn't me" link: `SecureLinkDetails`), or null. */
  details?: string | null
}

const TABLE = 'user_tokens'

function epochMs(value: unknown): number {
  return new Date(value as string | number | Date).getTime()
}

/** Tokens are base64url; anything else (or of another length) is refused without a query. */
function plausible(token: unknown): token is string {
  return typeof token === 'string' && token.length >= 32 && token.length <= 64 && /^[A-Za-z0-9_-]+$/.test(token)
}

export class UserTokens {
  readonly #db: () => Knex
  readonly #migrated: MigratedTables

  /** `migrated`: the tables the app has (the inventory's, read at boot; else read on first use). */
  constructor(db: () => Knex, migrated: MigratedTables = new MigratedTables(db, () => [TABLE])) {
    this.#db = db
    this.#migrated = migrated
  }

  /**
   * A new token for `userId`, valid for `minutes`. `replace` (default true) deletes the user's
   * earlier tokens of that purpose first, so only the newest link works.
   */
  async create(
    userId: unknown,
    purpose: UserTokenPurpose,
    options: { minutes: number; email?: string | null; replace?: boolean; details?: Record<string, unknown> | null },
  ): Promise<string> {
    const token = randomToken(32)
    const now = new Date()
    // Asked before the transaction: SQLite has one connection, which the transaction holds.
    const withDetails = options.details ? await this.hasDetails() : false
    await this.#db().transaction(async (trx) => {
      if (options.replace !== false) await trx(TABLE).where({ user_id: userId, purpose }).delete()
      await trx(TABLE).insert({
        user_id: userId,
        purpose,
        token_hash: sha256Hex(token),
        email: options.email ?? null,
        created_at: now,
        expires_at: new Date(now.getTime() + Math.round(options.minutes * 60_000)),
        ...(withDetails ? { details: JSON.stringify(options.details) } : {}),
      })
    })
    return token
  }

  /**
   * Whether `user_tokens` has the `details` column (the `add_account_recovery_columns`
   * migration), from the tables read at boot; an app that has not run it stores links without details.
   */
  async hasDetails(): Promise<boolean> {
    await this.#migrated.ready()
    return this.#migrated.hasColumn(TABLE, 'details')
  }

  /** The live row of a token of `purpose` without using it up, or null (unknown, used, expired). */
  async peek(token: unknown, purpose: UserTokenPurpose, trx?: Knex.Transaction): Promise<UserTokenRow | null> {
    if (!plausible(token)) return null
    const row = await (trx ?? this.#db())(TABLE).where({ token_hash: sha256Hex(token), purpose }).first()
    if (!row || epochMs(row.expires_at) <= Date.now()) return null
    return row as UserTokenRow
  }

  /**
   * Uses a token up: its row, or null when it is unknown, of another purpose, already used or
   * expired. Of concurrent calls with one token, exactly one gets the row. `trx` lets the caller
   * apply the token's effect in the same transaction.
   */
  async consume(token: unknown, purpose: UserTokenPurpose, trx?: Knex.Transaction): Promise<UserTokenRow | null> {
    if (!plausible(token)) return null
    const db = trx ?? this.#db()
    const digest = sha256Hex(token)
    const row = await db(TABLE).where({ token_hash: digest, purpose }).first()
    if (!row) return null
    const deleted = await db(TABLE).where({ id: row.id, token_hash: digest }).delete()
    if (deleted !== 1 || epochMs(row.expires_at) <= Date.now()) return null
    return row as UserTokenRow
  }

  /** Deletes every token of the user (all purposes, or one). */
  async revokeAll(userId: unknown, purpose?: UserTokenPurpose, trx?: Knex.Transaction): Promise<number> {
    const query = (trx ?? this.#db())(TABLE).where('user_id', userId as string | number)
    if (purpose) query.andWhere('purpose', purpose)
    return query.delete()
  }

  /** Deletes expired rows; the number deleted (`craft auth:prune`). */
  async prune(now = new Date()): Promise<number> {
    return this.#db()(TABLE).where('expires_at', '<=', now).delete()
  }
}
