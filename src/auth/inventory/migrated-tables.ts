/**
 * @module auth/inventory/migrated-tables
 * Which tables this app's database has, and the columns of the few tables that later migrations
 * widen (the users table, `user_tokens`): read once per process, not per request or per call.
 *
 * A feature's tables come with its migration (`craft auth` writes it with the feature's pages),
 * but a kind of the inventory, pruning or the audit log also runs in an app migrated before the
 * feature existed, or with the feature off and its migration never run. They ask this snapshot.
 * The auth provider reads it when a served app has booted (`load`); a console command, or an app
 * whose database did not answer then, reads it on first use (`ready`). An app migrated while it
 * runs sees the new tables after a restart; `TestClient`, which migrates a booted app, reads it again.
 */
import type { Knex } from 'knex'
import { driverOf } from '../../database/lookup-value.js'

interface Snapshot {
  tables: ReadonlySet<string>
  columns: ReadonlyMap<string, ReadonlySet<string>>
}

/** The names of the database's tables (one query: knex has no portable listing). */
async function listTables(db: Knex | Knex.Transaction): Promise<Set<string>> {
  const driver = driverOf(db)
  const rows: Record<string, unknown>[] =
    driver === 'postgres'
      ? await db.select('table_name as name').from('information_schema.tables').whereRaw('table_schema = current_schema()')
      : driver === 'mysql'
        ? await db.select('table_name as name').from('information_schema.tables').whereRaw('table_schema = database()')
        : await db.select('name').from('sqlite_master').where('type', 'table')
  return new Set(rows.map((row) => String(row.name ?? row.NAME ?? row.TABLE_NAME)))
}

export class MigratedTables {
  readonly #db: () => Knex
  readonly #columnTables: () => readonly string[]
  #snapshot: Snapshot | null = null
  #loading: Promise<void> | null = null

  /** `columnTables`: the tables whose columns `hasColumn` answers for (read when loading). */
  constructor(db: () => Knex, columnTables: () => readonly string[] = () => []) {
    this.#db = db
    this.#columnTables = columnTables
  }

  /**
   * Reads the snapshot (again: after a migration in this process). Pass the transaction the
   * caller is in: on SQLite (one connection) asking on another connection would wait for it forever.
   */
  load(db?: Knex | Knex.Transaction): Promise<void> {
    const loading = (async () => {
      const conn = db ?? this.#db()
      const tables = await listTables(conn)
      const columns = new Map<string, ReadonlySet<string>>()
      for (const table of new Set(this.#columnTables())) {
        if (tables.has(table)) columns.set(table, new Set(Object.keys(await conn(table).columnInfo())))
      }
      this.#snapshot = { tables, columns }
    })()
    this.#loading = loading
    loading.catch(() => {
      if (this.#loading === loading) this.#loading = null
    })
    return loading
  }

  /** Resolves once the snapshot is there, reading it now (with `db`) if it never was. */
  ready(db?: Knex | Knex.Transaction): Promise<void> {
    if (this.#snapshot) return Promise.resolve()
    return this.#loading ?? this.load(db)
  }

  /** Whether the database has `table` (after `ready`). */
  has(table: string): boolean {
    return this.#read().tables.has(table)
  }

  /** Whether `table` (one of the `columnTables`) has `column` (after `ready`). */
  hasColumn(table: string, column: string): boolean {
    return this.#read().columns.get(table)?.has(column) ?? false
  }

  #read(): Snapshot {
    if (!this.#snapshot) throw new Error('The migrated tables are read at boot: await ready() before asking.')
    return this.#snapshot
  }
}
