/**
 * @module database/testing
 * The database for tests, chosen like the app's: SQLite (in memory, or a temporary file) unless
 * `DB_CONNECTION=postgres|mysql` and `DATABASE_URL` are set. On PostgreSQL and MySQL every test
 * file shares one database, so each `TestDatabase` names its tables with its own random prefix
 * (`t_k3x9q2_users`) and `cleanup()` drops every table carrying that prefix.
 *
 * ```ts
 * const tdb = await createTestDatabase()
 * const users = tdb.table('users')       // 't_k3x9q2_users'
 * after(() => tdb.cleanup())
 * ```
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { DatabaseManager, type DatabaseDriver, normalizeDriver, setDatabase } from './database-manager.js'

export interface TestDatabaseOptions {
  /** SQLite only: use a file in a temporary folder instead of `:memory:`. */
  sqliteFile?: boolean
  /** Make it the default database of `db()` and `Model` (default true). */
  setDefault?: boolean
}

export interface TestDatabase {
  manager: DatabaseManager
  knex: Knex
  driver: DatabaseDriver
  /** The random prefix of this instance's tables, e.g. `t_k3x9q2_`. */
  prefix: string
  /** The SQLite file when `sqliteFile` was asked for. */
  file?: string
  /** `name` with this instance's prefix. */
  table(name: string): string
  /** Drops this instance's tables, closes its pools and unsets the default database. */
  cleanup(): Promise<void>
}

/** The connection the environment asks for: `sqlite` (default), `postgres` or `mysql`. */
export function testDriver(): DatabaseDriver {
  const wanted = process.env.DB_CONNECTION
  if (!wanted) return 'sqlite'
  const driver = normalizeDriver(wanted)
  if (!driver) throw new Error(`DB_CONNECTION=${wanted} is not sqlite, postgres or mysql`)
  return driver
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const driver = testDriver()
  const prefix = `t_${randomBytes(4).readUInt32BE().toString(36)}_`
  let directory: string | undefined
  let file: string | undefined
  const config: Record<string, unknown> = { default: driver }
  if (driver === 'sqlite') {
    if (options.sqliteFile) {
      directory = mkdtempSync(join(tmpdir(), 'trowel-db-'))
      file = join(directory, 'database.sqlite')
    }
    config.sqlite = { driver: 'sqlite', database: file ?? ':memory:' }
  } else {
    const url = process.env.DATABASE_URL
    if (!url) throw new Error(`DB_CONNECTION=${driver} needs DATABASE_URL`)
    config[driver] = { driver, url, pool: { min: 0, max: 10 } }
  }
  const manager = new DatabaseManager(config)
  const knex = manager.connection()
  if (options.setDefault !== false) setDatabase(manager)

  async function prefixedTables(knex: Knex): Promise<string[]> {
    let names: string[]
    if (driver === 'sqlite') {
      const rows = (await knex.raw(`select name from sqlite_master where type = 'table'`)) as Array<{ name: string }>
      names = rows.map((row) => row.name)
    } else if (driver === 'postgres') {
      const result = (await knex.raw('select table_name as name from information_schema.tables where table_schema = current_schema()')) as {
        rows: Array<{ name: string }>
      }
      names = result.rows.map((row) => row.name)
    } else {
      const [rows] = (await knex.raw('select table_name as name from information_schema.tables where table_schema = database()')) as [
        Array<{ name?: string; NAME?: string; TABLE_NAME?: string }>,
      ]
      names = rows.map((row) => row.name ?? row.NAME ?? row.TABLE_NAME ?? '')
    }
    return names.filter((name) => name.startsWith(prefix))
  }

  return {
    manager,
    knex,
    driver,
    prefix,
    file,
    table: (name) => `${prefix}${name}`,
    async cleanup() {
      try {
        // `manager.connection()`, not `knex`: a test may have closed and reopened the manager.
        const knex = manager.connection()
        // Foreign keys may forbid some drops until the referencing tables are gone: retry a few rounds.
        for (let round = 0; round < 5; round++) {
          const tables = await prefixedTables(knex)
          if (tables.length === 0) break
          for (const table of tables) {
            await (driver === 'postgres' ? knex.raw('drop table if exists ?? cascade', [table]) : knex.schema.dropTableIfExists(table)).catch(() => undefined)
          }
        }
      } finally {
        if (options.setDefault !== false) setDatabase(undefined)
        await manager.close()
        if (directory) rmSync(directory, { recursive: true, force: true })
      }
    },
  }
}
