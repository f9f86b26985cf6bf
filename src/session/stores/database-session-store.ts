/**
 * @module session/stores/database-session-store
 * The `database` driver: one row per session in the `sessions` table (see
 * `sessionsTableMigration`), through the app's Knex connection, so every process that shares the
 * database shares the sessions. Expired rows are ignored when read and pruned now and then. When
 * the table does not exist yet it is created on first use (`autoCreate: false` to forbid that).
 */
import type { Knex } from 'knex'
import { sessionsTableMigration } from '../sessions-table-migration.js'
import { decodeSessionData, encodeSessionData, type SessionData, type SessionStore } from '../session-store.js'

export interface DatabaseSessionStoreOptions {
  /** Table name; default `sessions`. */
  table?: string
  /** Chance (0..1) that a write also deletes expired rows; default 0.02. */
  pruneProbability?: number
  /** Create the table on first use when it is missing; default true. */
  autoCreate?: boolean
}

export class DatabaseSessionStore implements SessionStore {
  readonly #resolve: () => Knex
  #knex?: Knex
  readonly #table: string
  readonly #pruneProbability: number
  readonly #autoCreate: boolean
  #ready?: Promise<void>

  /** Takes a Knex instance, or a function returning one (resolved on first use). */
  constructor(db: Knex | (() => Knex), options: DatabaseSessionStoreOptions = {}) {
    this.#resolve = isKnex(db) ? () => db : (db as () => Knex)
    this.#table = options.table ?? 'sessions'
    this.#pruneProbability = options.pruneProbability ?? 0.02
    this.#autoCreate = options.autoCreate ?? true
  }

  get #db(): Knex {
    return (this.#knex ??= this.#resolve())
  }

  /** Creates the table once when it is missing (another process may win the race: fine). */
  #ensureTable(): Promise<void> {
    if (!this.#autoCreate) return Promise.resolve()
    this.#ready ??= (async () => {
      const db = this.#db
      if (await db.schema.hasTable(this.#table)) return
      try {
        await sessionsTableMigration(db.schema, this.#table)
      } catch (error) {
        if (!(await db.schema.hasTable(this.#table))) throw error
      }
    })().catch((error: unknown) => {
      this.#ready = undefined
      throw error
    })
    return this.#ready
  }

  async read(id: string): Promise<SessionData | null> {
    await this.#ensureTable()
    const row = await this.#db(this.#table).select('payload', 'expires_at').where('id', id).first()
    if (!row) return null
    if (Number(row.expires_at) <= Date.now()) {
      await this.destroy(id)
      return null
    }
    return decodeSessionData(row.payload)
  }

  async write(id: string, data: SessionData, ttlSeconds: number): Promise<void> {
    await this.#ensureTable()
    const now = Date.now()
    await this.#db(this.#table)
      .insert({ id, payload: encodeSessionData(data), last_activity: data.lastActivity, expires_at: now + ttlSeconds * 1000 })
      .onConflict('id')
      .merge(['payload', 'last_activity', 'expires_at'])
    if (this.#pruneProbability > 0 && Math.random() < this.#pruneProbability) await this.prune(now)
  }

  async destroy(id: string): Promise<void> {
    await this.#ensureTable()
    await this.#db(this.#table).where('id', id).delete()
  }

  /** Deletes expired rows; returns how many. */
  async prune(now = Date.now()): Promise<number> {
    return this.#db(this.#table).where('expires_at', '<=', now).delete()
  }
}

function isKnex(value: unknown): value is Knex {
  return typeof value === 'function' && 'schema' in value && 'client' in value
}
