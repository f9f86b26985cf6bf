/**
 * @module auth/accounts/login-revoker
 * Ends everything that authenticates a user: web logins (`login_tokens`), "remember me" tokens
 * (`remember_tokens`), and whatever other features register (the JWT facility clears the user's
 * API token). Used by a password reset or change, "log out other devices", "This wasn't me" and
 * account deletion. `keepLoginHash` spares one web login (the one making the request) and the
 * remember-me token of that device.
 */
import type { Knex } from 'knex'

export interface RevokeOptions {
  /** Run the deletes in this transaction (a reset consumes its token and revokes in one). */
  trx?: Knex.Transaction
  /** The `login_tokens.token_hash` of the login to keep (this device); null/absent = end all. */
  keepLoginHash?: string | null
  /** The user is being deleted: kinds that must outlive the row (token epochs) leave a trace. */
  deleting?: boolean
}

/** Ends one kind of login for a user; answers how many it ended. */
export type Revoker = (userId: unknown, db: Knex | Knex.Transaction, options: RevokeOptions) => Promise<number>

export class LoginRevoker {
  readonly #db: () => Knex
  readonly #revokers = new Map<string, Revoker>()
  /** Tables this app has, asked once per process (old apps may lack `remember_tokens`). */
  readonly #tables = new Map<string, Promise<boolean>>()

  constructor(db: () => Knex) {
    this.#db = db
    this.register('web', (userId, db, { keepLoginHash }) => {
      const query = db('login_tokens').where('user_id', userId as string | number)
      if (keepLoginHash) query.whereNot('token_hash', keepLoginHash)
      return query.delete()
    })
    this.register('remember', async (userId, db, { keepLoginHash }) => {
      if (!(await this.hasTable('remember_tokens', db))) return 0
      const query = db('remember_tokens').where('user_id', userId as string | number)
      if (keepLoginHash) query.where((q) => q.whereNull('login_token_hash').orWhereNot('login_token_hash', keepLoginHash))
      return query.delete()
    })
  }

  /** Adds (or replaces) a kind of login that `revokeAll` ends. */
  register(name: string, revoker: Revoker): void {
    this.#revokers.set(name, revoker)
  }

  /**
   * Whether the app's database has `table` (asked once per process). Pass the transaction the
   * caller is in: on SQLite (one connection) asking on another connection would wait for it forever.
   */
  hasTable(table: string, db?: Knex | Knex.Transaction): Promise<boolean> {
    let known = this.#tables.get(table)
    if (!known) {
      // A knex builder runs again each time it is awaited (on a transaction long committed):
      // Promise.resolve runs it once and keeps the answer.
      known = Promise.resolve((db ?? this.#db()).schema.hasTable(table))
      this.#tables.set(table, known)
      known.catch(() => this.#tables.delete(table))
    }
    return known
  }

  /** Ends every login of the user (but `keepLoginHash`'s); how many of each kind ended. */
  async revokeAll(userId: unknown, options: RevokeOptions = {}): Promise<Record<string, number>> {
    const db = options.trx ?? this.#db()
    const counts: Record<string, number> = {}
    for (const [name, revoker] of this.#revokers) counts[name] = Number(await revoker(userId, db, options))
    return counts
  }
}
