/**
 * @module database/migrator
 * `Migrator`: applies, undoes and lists the migration files of one folder, recording each applied
 * file (name without extension) and its batch in the `migrations` table.
 *
 * Units of work. Each migration is its own unit:
 * - SQLite and PostgreSQL (transactional DDL): the record is inserted first and `up()` runs in the
 *   same transaction, so a migration is either fully applied and recorded or not at all. When a
 *   migration fails, the ones of the same batch that ran before it stay applied and recorded
 *   (each is complete; `migrate:rollback` undoes them as a batch), and the run stops with a
 *   `MigrationError` naming the file and the cause. On SQLite foreign-key enforcement is off
 *   inside the transaction (knex rebuilds a table to drop or alter a column, and dropping the old
 *   copy must not cascade into other tables); `foreign_key_check` runs before the commit.
 * - MySQL/MariaDB (DDL commits implicitly): `up()` runs, then the record is written. If `up()`
 *   fails the migrator calls `down()` to undo what it can and reports whether that worked.
 *
 * Concurrency. Calls on one database within a process are queued (two `run()`s never overlap).
 * Across processes: on SQLite and PostgreSQL the record insert that opens each migration's
 * transaction takes the row lock first, so a second process waits for the first's commit, hits
 * the unique name and skips that migration; on MySQL a server lock (`GET_LOCK`, released if the
 * process dies) serialises whole runs. Every pending file is imported before any is applied, so a
 * file that does not load stops the run before anything changes.
 *
 * Migration code must use `this.schema` / `this.db` (the transaction), not the global `db()`:
 * SQLite has one connection, held by the transaction.
 */
import { readdir } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import type { Knex } from 'knex'
import { FrameworkError } from '../foundation/framework-error.js'
import { appModuleUrl, appModulesReady, inAppTerms } from '../foundation/app-modules.js'
import { MigrationError, errorLine, isUniqueViolation } from './errors.js'
import { driverOf } from './lookup-value.js'
import { Migration } from './migration.js'

export interface MigratorOptions {
  /** The table that records applied migrations (default `migrations`). */
  tableName?: string
  /** MySQL: seconds to wait for another process's run to finish (default 60). */
  lockTimeout?: number
}

/** One line of `status()`. */
export interface MigrationStatus {
  name: string
  ran: boolean
  batch: number | null
}

interface MigrationRecord {
  id: number
  name: string
  batch: number
}

interface MigrationFile {
  name: string
  path: string
}

type MigrationConstructor = new (connection: Knex | Knex.Transaction) => Migration

interface LoadedMigration extends MigrationFile {
  Class: MigrationConstructor
}

/** Thrown inside a transaction to roll it back without an error: another process did the work. */
const ALREADY_DONE = Symbol('trowel.migrator.alreadyDone')

const QUEUES = new WeakMap<object, Promise<unknown>>()

const MIGRATION_FILE = /^(?!.*\.d\.[cm]?ts$)(?!.*\.test\.[cm]?[jt]s$)(.+)\.([cm]?[jt]s)$/

export class Migrator {
  readonly directory: string
  readonly tableName: string
  private readonly lockTimeout: number

  constructor(
    readonly knex: Knex,
    directory: string,
    options: MigratorOptions = {},
  ) {
    this.directory = resolve(directory)
    this.tableName = options.tableName ?? 'migrations'
    this.lockTimeout = options.lockTimeout ?? 60
  }

  /**
   * The migration files (`*.ts`, `*.js`; not `.d.ts` or tests), full paths sorted by name. When
   * a name exists as both `.ts` and `.js`, the `.ts` source wins. A missing folder has none.
   */
  async files(): Promise<string[]> {
    return (await this.migrationFiles()).map((file) => file.path)
  }

  /** Every migration file and every recorded migration, by name, with its batch. */
  async status(): Promise<MigrationStatus[]> {
    const records = (await this.knex.schema.hasTable(this.tableName)) ? await this.records() : []
    const batches = new Map(records.map((record) => [record.name, Number(record.batch)]))
    const names = new Set([...(await this.migrationFiles()).map((file) => file.name), ...batches.keys()])
    return [...names].sort().map((name) => ({ name, ran: batches.has(name), batch: batches.get(name) ?? null }))
  }

  /** Applies every pending migration, in name order, as one new batch. Returns the names applied. */
  async run(): Promise<string[]> {
    return this.exclusive(() => this.runPending())
  }

  /** Undoes the last batch, newest first. Returns the names undone. */
  async rollback(): Promise<string[]> {
    return this.exclusive(async () => {
      const records = await this.records()
      const last = Math.max(0, ...records.map((record) => Number(record.batch)))
      return this.undo(records.filter((record) => Number(record.batch) === last))
    })
  }

  /** Undoes every applied migration, newest first. Returns the names undone. */
  async reset(): Promise<string[]> {
    return this.exclusive(async () => this.undo(await this.records()))
  }

  /** Undoes everything, then applies everything. */
  async refresh(): Promise<{ rolledBack: string[]; ran: string[] }> {
    return this.exclusive(async () => {
      const rolledBack = await this.undo(await this.records())
      const ran = await this.runPending()
      return { rolledBack, ran }
    })
  }

  // ---- steps ----------------------------------------------------------------------------

  private async runPending(): Promise<string[]> {
    const applied = new Set((await this.records()).map((record) => record.name))
    const pending = (await this.migrationFiles()).filter((file) => !applied.has(file.name))
    if (pending.length === 0) return []
    const loaded: LoadedMigration[] = []
    for (const file of pending) loaded.push({ ...file, Class: await this.load(file) })
    const batch = (await this.lastBatch()) + 1
    const ran: string[] = []
    for (const migration of loaded) if (await this.apply(migration, batch)) ran.push(migration.name)
    return ran
  }

  private async undo(records: MigrationRecord[]): Promise<string[]> {
    const ordered = [...records].sort((a, b) => Number(b.batch) - Number(a.batch) || Number(b.id) - Number(a.id))
    const files = new Map((await this.migrationFiles()).map((file) => [file.name, file]))
    const loaded: LoadedMigration[] = []
    for (const record of ordered) {
      const file = files.get(record.name)
      if (!file) throw new MigrationError(record.name, `it is recorded as applied but its file is missing from ${this.directory}.`)
      loaded.push({ ...file, Class: await this.load(file) })
    }
    const undone: string[] = []
    for (const migration of loaded) if (await this.revert(migration)) undone.push(migration.name)
    return undone
  }

  /** Applies one migration; false when another process applied it meanwhile. */
  private async apply(migration: LoadedMigration, batch: number): Promise<boolean> {
    const record = { name: migration.name, batch, migrated_at: new Date() }
    if (this.driver() === 'mysql') {
      const instance = new migration.Class(this.knex)
      try {
        await instance.up()
      } catch (error) {
        let undo = 'its down() undid the partial changes'
        try {
          await instance.down()
        } catch (downError) {
          undo = `its down() failed too (${errorLine(downError)}); check the database by hand`
        }
        throw new MigrationError(migration.name, `${errorLine(error)} (MySQL cannot roll DDL back; ${undo}).`, { cause: error })
      }
      try {
        await this.knex(this.tableName).insert(record)
      } catch (error) {
        throw new MigrationError(migration.name, `it was applied but could not be recorded: ${errorLine(error)}`, { cause: error })
      }
      return true
    }
    return this.inTransaction(migration, async (trx) => {
      try {
        await trx(this.tableName).insert(record)
      } catch (error) {
        if (isUniqueViolation(error)) throw ALREADY_DONE
        throw error
      }
      await new migration.Class(trx).up()
    })
  }

  /** Undoes one migration; false when another process undid it meanwhile. */
  private async revert(migration: LoadedMigration): Promise<boolean> {
    if (this.driver() === 'mysql') {
      try {
        await new migration.Class(this.knex).down()
        await this.knex(this.tableName).where({ name: migration.name }).delete()
      } catch (error) {
        throw new MigrationError(migration.name, `rollback failed: ${errorLine(error)} (MySQL cannot roll DDL back; the migration is still recorded).`, {
          cause: error,
        })
      }
      return true
    }
    return this.inTransaction(migration, async (trx) => {
      const deleted = await trx(this.tableName).where({ name: migration.name }).delete()
      if (Number(deleted) === 0) throw ALREADY_DONE
      await new migration.Class(trx).down()
    })
  }

  /**
   * Runs one unit in a transaction. SQLite answers SQLITE_BUSY at once (without waiting out
   * busy_timeout) when another process wrote since this transaction began; the unit was rolled
   * back whole, so it is simply tried again (then usually finds the work done) until `lockTimeout`.
   */
  private async inTransaction(migration: LoadedMigration, work: (trx: Knex.Transaction) => Promise<void>): Promise<boolean> {
    const sqlite = this.driver() === 'sqlite'
    const deadline = Date.now() + this.lockTimeout * 1000
    for (;;) {
      try {
        await this.knex.transaction(work, sqlite ? { enforceForeignCheck: false } : {})
        return true
      } catch (error) {
        if (error === ALREADY_DONE) return false
        const code = String((error as { code?: unknown } | null)?.code ?? '')
        if (sqlite && code.startsWith('SQLITE_BUSY') && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 25 + Math.random() * 75))
          continue
        }
        throw new MigrationError(migration.name, `${errorLine(error)} (rolled back; nothing of it was applied).`, { cause: error })
      }
    }
  }

  // ---- files ----------------------------------------------------------------------------

  private async migrationFiles(): Promise<MigrationFile[]> {
    let entries: string[]
    try {
      entries = await readdir(this.directory)
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return []
      throw error
    }
    const byName = new Map<string, MigrationFile>()
    for (const entry of entries.sort()) {
      const match = MIGRATION_FILE.exec(entry)
      if (!match?.[1]) continue
      const existing = byName.get(match[1])
      if (existing && /\.[cm]?ts$/.test(existing.path)) continue
      byName.set(match[1], { name: match[1], path: join(this.directory, entry) })
    }
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  private async load(file: MigrationFile): Promise<MigrationConstructor> {
    let module: { default?: unknown }
    await appModulesReady()
    try {
      module = (await import(appModuleUrl(file.path))) as { default?: unknown }
    } catch (error) {
      throw new MigrationError(file.name, `${basename(file.path)} could not be loaded: ${inAppTerms(errorLine(error))}`, { cause: error })
    }
    const exported = module.default
    const prototype = typeof exported === 'function' ? (exported.prototype as { up?: unknown; down?: unknown } | undefined) : undefined
    // Duck-typed as well: an app may import `Migration` from a different copy of trowel (build vs source).
    const isMigration = prototype instanceof Migration || (typeof prototype?.up === 'function' && typeof prototype.down === 'function')
    if (!isMigration) {
      throw new MigrationError(file.name, `${basename(file.path)} must default-export a class extending Migration (export default class … extends Migration).`)
    }
    return exported as unknown as MigrationConstructor
  }

  // ---- bookkeeping ----------------------------------------------------------------------

  private driver(): 'sqlite' | 'postgres' | 'mysql' {
    return driverOf(this.knex)
  }

  private async records(): Promise<MigrationRecord[]> {
    await this.ensureTable()
    return (await this.knex(this.tableName).select('id', 'name', 'batch').orderBy('id')) as MigrationRecord[]
  }

  private async lastBatch(): Promise<number> {
    const row = (await this.knex(this.tableName).max({ batch: 'batch' }).first()) as { batch?: unknown } | undefined
    return Number(row?.batch ?? 0) || 0
  }

  private async ensureTable(): Promise<void> {
    if (await this.knex.schema.hasTable(this.tableName)) return
    try {
      await this.knex.schema.createTable(this.tableName, (table) => {
        table.increments('id')
        table.string('name', 191).notNullable().unique()
        table.integer('batch').notNullable()
        table.dateTime('migrated_at').nullable()
      })
    } catch (error) {
      // Another process created it between our check and our create.
      if (!(await this.knex.schema.hasTable(this.tableName))) throw error
    }
  }

  /** Queues the task behind any other migrator task on this database in this process (and on MySQL, across processes). */
  private async exclusive<R>(task: () => Promise<R>): Promise<R> {
    const key = this.knex.client as object
    const previous = QUEUES.get(key) ?? Promise.resolve()
    const current = previous.then(
      () => this.withServerLock(task),
      () => this.withServerLock(task),
    )
    QUEUES.set(
      key,
      current.catch(() => undefined),
    )
    return current
  }

  private async withServerLock<R>(task: () => Promise<R>): Promise<R> {
    if (this.driver() !== 'mysql') return task()
    await this.ensureTable()
    const client = this.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<unknown> }
    const connection = await client.acquireConnection()
    const name = `trowel:${this.tableName}`.slice(0, 64)
    try {
      const [rows] = (await this.knex.raw('select get_lock(?, ?) as acquired', [name, this.lockTimeout]).connection(connection)) as [Array<{ acquired: unknown }>]
      if (Number(rows[0]?.acquired) !== 1) {
        throw new FrameworkError('E_MIGRATION_LOCKED', `Another process has been running migrations for over ${this.lockTimeout}s; try again when it has finished.`)
      }
      try {
        return await task()
      } finally {
        await this.knex
          .raw('select release_lock(?)', [name])
          .connection(connection)
          .catch(() => undefined)
      }
    } finally {
      await client.releaseConnection(connection)
    }
  }
}
