/**
 * @module database/prepared-lookup
 * `PreparedLookup.findBy(table, column, value)`: the single-row lookup that runs on every
 * authenticated request (user by id, login by token hash). On SQLite it reuses one
 * better-sqlite3 statement per (table, column) instead of letting knex compile and prepare the
 * query each time; on PostgreSQL and MySQL it is knex `where().first()`.
 */
import type { Knex } from 'knex'
import type { DatabaseDriver } from './database-manager.js'
import { translateDatabaseError } from './errors.js'
import { NO_MATCH, coercedMatch, isLookupTypeMismatch, lookupValue } from './lookup-value.js'

/** The slice of better-sqlite3's `Database` this module uses (the package ships no types). */
interface RawSqliteDatabase {
  readonly open: boolean
  readonly inTransaction: boolean
  prepare(sql: string): RawStatement
}

/** The slice of better-sqlite3's `Statement` used here. */
interface RawStatement {
  get(...params: unknown[]): unknown
  raw(toggle: boolean): RawStatement
  columns(): { name: string }[]
}

interface KnexClientInternals {
  acquireConnection(): Promise<unknown>
  releaseConnection(connection: unknown): unknown
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/

/** `queryNow`'s answer when the query cannot run synchronously here. */
export const UNAVAILABLE: unique symbol = Symbol('prepared-lookup.unavailable')

/** Whether `name` may be put in SQL text as a double-quoted identifier (`table` or `schema.table`). */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name)
}

/** `name` double-quoted for SQL (SQLite, PostgreSQL), per dotted part. */
export function quoteIdentifier(name: string): string {
  return quote(name)
}

function quote(identifier: string): string {
  return identifier
    .split('.')
    .map((part) => `"${part}"`)
    .join('.')
}

/** A value better-sqlite3 can bind, converted as knex would (Date → ms, boolean → 0/1), or `undefined`. */
function sqliteBinding(value: unknown): unknown {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || Buffer.isBuffer(value)) return value
  if (typeof value === 'boolean') return value ? 1 : 0
  if (value instanceof Date) return value.valueOf()
  return undefined
}

/**
 * One per connection, from `DatabaseManager.prepared()`.
 *
 * On SQLite the raw better-sqlite3 handle is taken from knex's pool once (`acquireConnection`)
 * and handed straight back: that pool holds exactly one connection, so keeping it checked out
 * would stall every other knex query. better-sqlite3 is synchronous, so a statement run on the
 * shared handle can never interleave with a knex query. While the handle is inside a knex
 * transaction the lookup goes through knex instead (and so waits for the transaction to end),
 * so it never reads another caller's uncommitted rows. If the pool replaced the handle, it is
 * fetched again and the statements are prepared anew.
 */
export class PreparedLookup {
  private raw: RawSqliteDatabase | undefined
  private statements = new Map<string, RawStatement>()
  private queries = new Map<string, { statement: RawStatement; columns: readonly string[]; schema: unknown }>()
  private closed = false

  constructor(
    private readonly knex: Knex,
    private readonly driver: DatabaseDriver,
  ) {}

  /**
   * The first row whose `column` equals `value`, or `undefined`. `undefined` and `null` values
   * return `undefined` without a query: a lookup never matches rows whose column is NULL (nor do
   * arrays or objects; see `lookupValue`).
   */
  findBy(table: string, column: string, value: unknown): Promise<Record<string, unknown> | undefined> {
    try {
      return Promise.resolve(this.lookup(table, column, value))
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * `findBy` without a promise when the answer is at hand: on SQLite, once the handle is kept and
   * the statement prepared, outside a transaction. Otherwise `findBy`'s promise. Throws what
   * `findBy` rejects with.
   */
  lookup(table: string, column: string, value: unknown): Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined> {
    const bound = lookupValue(value, this.driver)
    if (bound === NO_MATCH) return undefined
    const raw = this.raw
    if (this.driver === 'sqlite' && !this.closed && raw?.open && !raw.inTransaction) {
      // A statement exists only for identifiers that passed IDENTIFIER when it was prepared.
      const statement = this.statements.get(`${table}\u0000${column}`)
      const binding = statement && sqliteBinding(bound)
      if (statement && binding !== undefined) {
        try {
          return statement.get(binding) as Record<string, unknown> | undefined
        } catch (error) {
          if (isLookupTypeMismatch(error)) return undefined
          throw translateDatabaseError(error, { table })
        }
      }
    }
    return this.#find(table, column, bound)
  }

  /**
   * The first row of `sql` (a fixed `select ...` with one `?`, built by the caller from
   * identifiers that passed `isPlainIdentifier`) as an array of values, in the order of
   * `columnsOf(key)` (better-sqlite3's raw mode: no object per row to build and take apart), run
   * synchronously on SQLite's kept handle through a statement prepared once per `key`;
   * `UNAVAILABLE` when it cannot run so (another driver, no handle kept yet, inside a transaction,
   * a value SQLite cannot bind): the caller then asks another way. For the few per-request reads
   * that would otherwise take two look-ups.
   */
  queryNow(key: string, sql: string, value: unknown): unknown[] | undefined | typeof UNAVAILABLE {
    const raw = this.raw
    if (this.driver !== 'sqlite' || this.closed || !raw?.open || raw.inTransaction) return UNAVAILABLE
    const bound = lookupValue(value, this.driver)
    if (bound === NO_MATCH) return undefined
    const binding = sqliteBinding(bound)
    if (binding === undefined) return UNAVAILABLE
    let query = this.queries.get(key)
    if (!query && !/^select /i.test(sql)) throw new TypeError(`queryNow takes a SELECT, not: ${sql}`)
    try {
      if (!query) {
        // The schema's version is the row's first value: SQLite re-prepares a statement whose
        // tables changed (a migration run by another process), and a `*` then stands for other
        // columns. Read in the same statement as the row (one read, and the version always
        // belongs to that row), the names are read again whenever it moved, so a value never
        // travels under another column's name.
        const withSchema = `select (select "schema_version" from pragma_schema_version) as "trowel$schema", ${sql.slice(7)}`
        query = { statement: raw.prepare(withSchema).raw(true), columns: [], schema: undefined }
        this.queries.set(key, query)
      }
      const values = query.statement.get(binding) as unknown[] | undefined
      if (values === undefined) return undefined
      const schema = values.shift()
      if (schema !== query.schema) {
        query.columns = Object.freeze(query.statement.columns().slice(1).map((c) => c.name))
        query.schema = schema
      }
      return values
    } catch (error) {
      this.queries.delete(key)
      if (isLookupTypeMismatch(error)) return undefined
      throw translateDatabaseError(error, {})
    }
  }

  /** The column names of `queryNow(key, ...)`'s rows, once it has run. */
  columnsOf(key: string): readonly string[] | undefined {
    return this.queries.get(key)?.columns
  }

  async #find(table: string, column: string, bound: Knex.Value): Promise<Record<string, unknown> | undefined> {
    try {
      if (this.driver === 'sqlite' && !this.closed && IDENTIFIER.test(table) && IDENTIFIER.test(column)) {
        const binding = sqliteBinding(bound)
        if (binding !== undefined) {
          // The handle is kept: only the first lookup (or one after the pool replaced it) awaits.
          const raw = this.raw?.open ? this.raw : await this.handle()
          if (raw && !raw.inTransaction) {
            const key = `${table}\u0000${column}`
            let statement = this.statements.get(key)
            if (!statement) {
              statement = raw.prepare(`select * from ${quote(table)} where ${quote(column)} = ? limit 1`)
              this.statements.set(key, statement)
            }
            return statement.get(binding) as Record<string, unknown> | undefined
          }
        }
      }
      const row = (await this.knex(table).where(column, bound).first()) as Record<string, unknown> | undefined
      return row && coercedMatch(row[column], bound, this.driver) ? undefined : row
    } catch (error) {
      if (isLookupTypeMismatch(error)) return undefined
      throw translateDatabaseError(error, { table })
    }
  }

  /** Forgets the statements and the handle (the pool itself is destroyed by the manager). */
  close(): void {
    this.closed = true
    this.statements.clear()
    this.queries.clear()
    this.raw = undefined
  }

  private async handle(): Promise<RawSqliteDatabase | undefined> {
    if (this.raw?.open) return this.raw
    this.statements.clear()
    this.queries.clear()
    const client = this.knex.client as KnexClientInternals
    const raw = (await client.acquireConnection()) as RawSqliteDatabase
    await client.releaseConnection(raw)
    this.raw = raw
    return raw
  }
}
