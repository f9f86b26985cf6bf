/**
 * @module auth/throttle/database-throttle-store
 * A `ThrottleStore` in the app's SQL database (SQLite, PostgreSQL, MySQL), shared by every
 * process that uses it. A hit is one atomic upsert that either opens a new window or increments
 * the current one and reads the result back (SQLite and PostgreSQL: `INSERT … ON CONFLICT DO
 * UPDATE … RETURNING`; MySQL: `INSERT … ON DUPLICATE KEY UPDATE`, then `SELECT … FOR UPDATE` in
 * the same transaction), so concurrent hits, from any number of processes, never lose a count. Keys are stored
 * as their SHA-256 (no e-mail address or IP in clear); `reset_at` is in epoch milliseconds.
 */
import type { Knex } from 'knex'
import { sha256Hex } from '../tokens/sha256-hex.js'
import { driverOf } from '../../database/lookup-value.js'
import { assertWindow, secondsUntil, type ThrottleEntry, type ThrottleStore } from './throttle-store.js'

export const THROTTLE_TABLE = 'throttle'

export interface DatabaseThrottleStoreOptions {
  /** Table name. Default `'throttle'`. */
  table?: string
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number
}

/**
 * Creates the throttle table; call it from a migration's `up()`.
 *
 * @example
 * async up() { await throttleTableMigration(this.schema) }
 * async down() { await this.schema.dropTableIfExists('throttle') }
 */
export function throttleTableMigration(schema: Knex.SchemaBuilder, table = THROTTLE_TABLE): Knex.SchemaBuilder {
  return schema.createTable(table, (t) => {
    t.string('key', 64).primary()
    t.integer('count').notNullable()
    t.bigInteger('reset_at').notNullable()
  })
}

interface Row {
  count: number | string
  reset_at: number | string
}

/**
 * @example
 * const store = new DatabaseThrottleStore(db)
 */
export class DatabaseThrottleStore implements ThrottleStore {
  readonly table: string
  readonly #db: Knex
  readonly #now: () => number

  constructor(db: Knex, options: DatabaseThrottleStoreOptions = {}) {
    this.#db = db
    this.table = options.table ?? THROTTLE_TABLE
    this.#now = options.now ?? Date.now
  }

  async hit(key: string, windowSeconds: number): Promise<ThrottleEntry> {
    assertWindow(windowSeconds)
    const now = this.#now()
    const resetAt = now + Math.max(1, Math.ceil(windowSeconds * 1000))
    const id = sha256Hex(key)
    const db = this.#db
    const current = (column: string) => db.raw('??', [`${this.table}.${column}`])
    // One atomic upsert: a new key opens a window, an ended window starts again at 1, a running
    // one counts up. Concurrent hits on one key queue on its row lock, so none is lost.
    const upsert = (client: Knex | Knex.Transaction) =>
      client(this.table)
        .insert({ key: id, count: 1, reset_at: resetAt })
        .onConflict('key')
        .merge({
          count: db.raw('CASE WHEN ? <= ? THEN 1 ELSE ? + 1 END', [current('reset_at'), now, current('count')]),
          reset_at: db.raw('CASE WHEN ? <= ? THEN ? ELSE ? END', [current('reset_at'), now, resetAt, current('reset_at')]),
        })
    const entry = (row: Row) => ({ count: Number(row.count), resetInSeconds: secondsUntil(Number(row.reset_at), now) })
    if (driverOf(db) !== 'mysql') {
      // SQLite and PostgreSQL: `INSERT … ON CONFLICT DO UPDATE … RETURNING`, one statement.
      const rows = (await upsert(db).returning(['count', 'reset_at'])) as Row[]
      return entry(rows[0]!)
    }
    // MySQL has no RETURNING: `INSERT … ON DUPLICATE KEY UPDATE` (whose SET clauses run left to
    // right: `reset_at`'s CASE reads the old `reset_at`, which `count`'s did not change) takes the
    // row's lock; the read in the same transaction, `FOR UPDATE`, sees this hit's own result.
    return db.transaction(async (trx) => {
      await upsert(trx)
      return entry((await trx(this.table).where('key', id).forUpdate().first('count', 'reset_at')) as Row)
    })
  }

  async get(key: string): Promise<ThrottleEntry | null> {
    const now = this.#now()
    const row = (await this.#db(this.table).where('key', sha256Hex(key)).first('count', 'reset_at')) as Row | undefined
    if (row === undefined || Number(row.reset_at) <= now) return null
    return { count: Number(row.count), resetInSeconds: secondsUntil(Number(row.reset_at), now) }
  }

  async clear(key: string): Promise<void> {
    await this.#db(this.table).where('key', sha256Hex(key)).delete()
  }

  /** Deletes windows that have ended; optional housekeeping (e.g. from a scheduled job). */
  async prune(): Promise<number> {
    return this.#db(this.table).where('reset_at', '<=', this.#now()).delete()
  }
}
