/**
 * @module database/database-manager
 * `DatabaseManager` turns the app's `config/database.ts` `DATABASES` into cached knex instances
 * (SQLite through better-sqlite3, PostgreSQL through pg, MySQL/MariaDB through mysql2), checks
 * that a connection answers, and closes every pool. `setDatabase()` / `db()` hold the process-wide
 * default manager that `Model` uses.
 */
import { mkdirSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import knexFactory, { type Knex } from 'knex'
import { FrameworkError } from '../foundation/framework-error.js'
import { DatabaseUnavailableError, errorLine } from './errors.js'
import { PreparedLookup } from './prepared-lookup.js'
import { SqliteClient } from './sqlite-client.js'

/** The drivers Trowel knows, by their canonical name. */
export type DatabaseDriver = 'sqlite' | 'postgres' | 'mysql'

/** One entry of `DATABASES`. Values may come straight from `env()`, hence the loose types. */
export interface ConnectionConfig {
  /** `sqlite`, `postgres` (`pg`, `postgresql`) or `mysql` (`mariadb`). */
  driver: string
  /** SQLite: the file, relative to the app's base path, or `:memory:`. */
  database?: unknown
  /** PostgreSQL / MySQL: `postgres://user:pass@host:5432/db`, `mysql://user:pass@host:3306/db`. */
  url?: unknown
  pool?: { min?: number; max?: number }
  /** Milliseconds to wait for a pooled connection before failing with 503 (default 10000). */
  acquireTimeout?: number
  /** Extra driver options merged into knex's `connection` object. */
  options?: Record<string, unknown>
}

/** The shape of `config/database.ts`'s `DATABASES`: `default` names one of the other keys. */
export interface DatabasesConfig {
  default?: unknown
  [name: string]: unknown
}

/**
 * Knex's own warnings, minus "Acquire connection error": that error is thrown to the caller (and
 * becomes a one-line `DatabaseUnavailableError`), so logging it too would only print it twice.
 */
const KNEX_LOG = {
  warn(message: unknown) {
    if (typeof message === 'string' && message.startsWith('Acquire connection error')) return
    console.warn(`[database] ${String(message)}`)
  },
  error(message: unknown) {
    console.error(`[database] ${String(message)}`)
  },
  deprecate(method: unknown, alternative: unknown) {
    console.warn(`[database] ${String(method)} is deprecated; use ${String(alternative)}`)
  },
  debug() {},
}

const DRIVER_ALIASES: Record<string, DatabaseDriver> = {
  sqlite: 'sqlite',
  sqlite3: 'sqlite',
  'better-sqlite3': 'sqlite',
  postgres: 'postgres',
  postgresql: 'postgres',
  pg: 'postgres',
  mysql: 'mysql',
  mysql2: 'mysql',
  mariadb: 'mysql',
}

interface ResolvedConnection {
  name: string
  driver: DatabaseDriver
  /** `127.0.0.1:5432` or the SQLite file, for messages; never holds credentials. */
  location: string
  knexConfig: Knex.Config
}

interface RawSqliteConnection {
  readonly open: boolean
  pragma(source: string): unknown
}

/** Canonical driver for a driver or `DB_CONNECTION` alias, or `undefined` when unknown. */
export function normalizeDriver(name: unknown): DatabaseDriver | undefined {
  return typeof name === 'string' ? DRIVER_ALIASES[name.trim().toLowerCase()] : undefined
}

function hostOf(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname || 'localhost'}:${parsed.port || defaultPort}`
  } catch {
    return 'an unparsable DATABASE_URL'
  }
}

/**
 * Builds and caches one knex instance per connection name.
 *
 * ```ts
 * const manager = new DatabaseManager(DATABASES, appRoot)
 * await manager.check()            // throws DatabaseUnavailableError with a one-line message
 * const users = await manager.connection()('users').select('*')
 * await manager.close()
 * ```
 */
export class DatabaseManager {
  readonly config: DatabasesConfig
  readonly basePath: string
  private readonly connections = new Map<string, Knex>()
  private readonly lookups = new Map<string, PreparedLookup>()

  /** @param basePath the app folder; relative SQLite paths are resolved against it. */
  constructor(config: DatabasesConfig, basePath: string = process.cwd()) {
    this.config = config
    this.basePath = basePath
  }

  /** The name `default` points at, after aliases (`pg` → `postgres`, `mariadb` → `mysql`). */
  defaultConnectionName(): string {
    const wanted = this.config.default
    return this.resolveName(typeof wanted === 'string' && wanted !== '' ? wanted : 'sqlite')
  }

  /** The canonical driver of a connection (`sqlite`, `postgres`, `mysql`). */
  driver(name?: string): DatabaseDriver {
    return this.resolve(name).driver
  }

  /** The knex instance for `name` (the default connection when omitted), created once. */
  connection(name?: string): Knex {
    const resolvedName = name === undefined ? this.defaultConnectionName() : this.resolveName(name)
    const cached = this.connections.get(resolvedName)
    if (cached) return cached
    const resolved = this.resolve(resolvedName)
    // The SQLite file's folder is created on first use, so `new DatabaseManager()` has no side effect.
    if (resolved.driver === 'sqlite' && resolved.location !== ':memory:' && !resolved.location.startsWith('file:')) {
      mkdirSync(dirname(resolved.location), { recursive: true })
    }
    const instance = knexFactory({ ...resolved.knexConfig, log: KNEX_LOG })
    this.connections.set(resolvedName, instance)
    return instance
  }

  /**
   * Runs `select 1`. On failure throws a `DatabaseUnavailableError` whose message is one line
   * naming the connection and driver, e.g.
   * `Cannot connect to database "postgres" (postgres at 127.0.0.1:5432): connect ECONNREFUSED 127.0.0.1:5432`.
   */
  async check(name?: string): Promise<void> {
    const resolved = this.resolve(name)
    try {
      await this.connection(resolved.name).raw('select 1')
    } catch (error) {
      const line = `Cannot connect to database "${resolved.name}" (${resolved.driver} at ${resolved.location}): ${errorLine(error)}`
      throw new DatabaseUnavailableError(line, { cause: error, message: line })
    }
  }

  /**
   * The fast path for hot single-row lookups (`findBy(table, column, value)`): on SQLite a
   * better-sqlite3 statement prepared once per (table, column); elsewhere knex `where().first()`.
   */
  prepared(name?: string): PreparedLookup {
    // Runs on every authenticated request: only the name is resolved on a hit, not the config.
    const resolvedName = name === undefined ? this.defaultConnectionName() : this.resolveName(name)
    let lookup = this.lookups.get(resolvedName)
    if (!lookup) {
      const resolved = this.resolve(resolvedName)
      lookup = new PreparedLookup(this.connection(resolved.name), resolved.driver)
      this.lookups.set(resolved.name, lookup)
    }
    return lookup
  }

  /** Destroys every pool (and the prepared statements). The manager can be used again afterwards. */
  async close(): Promise<void> {
    const lookups = [...this.lookups.values()]
    const connections = [...this.connections.values()]
    this.lookups.clear()
    this.connections.clear()
    for (const lookup of lookups) lookup.close()
    await Promise.all(connections.map((instance) => instance.destroy()))
  }

  private resolveName(name: string): string {
    if (Object.hasOwn(this.config, name) && typeof this.config[name] === 'object' && this.config[name] !== null) return name
    const driver = normalizeDriver(name)
    if (driver) {
      // `DB_CONNECTION=pg` with a `postgres` entry, or an entry of another name using that driver.
      if (driver !== name && typeof this.config[driver] === 'object' && this.config[driver] !== null) return driver
      for (const [key, value] of Object.entries(this.config)) {
        if (key !== 'default' && normalizeDriver((value as ConnectionConfig | null)?.driver) === driver) return key
      }
    }
    const known = Object.keys(this.config).filter((key) => key !== 'default')
    throw new FrameworkError(
      'E_DATABASE_CONFIG',
      `Unknown database connection "${name}" (config/database.ts DATABASES has: ${known.join(', ') || 'nothing'}).`,
    )
  }

  private resolve(name?: string): ResolvedConnection {
    const resolvedName = name === undefined ? this.defaultConnectionName() : this.resolveName(name)
    const config = this.config[resolvedName] as ConnectionConfig
    const driver = normalizeDriver(config.driver)
    if (!driver) {
      throw new FrameworkError(
        'E_DATABASE_CONFIG',
        `Database connection "${resolvedName}" has unknown driver "${String(config.driver)}" (config/database.ts); use sqlite, postgres or mysql.`,
      )
    }
    const pool = { min: config.pool?.min ?? 0, max: config.pool?.max ?? 10 }
    const acquireConnectionTimeout = config.acquireTimeout ?? 10_000
    if (driver === 'sqlite') {
      const file = typeof config.database === 'string' && config.database !== '' ? config.database : 'storage/database.sqlite'
      const memory = file === ':memory:' || file.startsWith('file::memory:')
      const filename = memory ? file : isAbsolute(file) ? file : resolve(this.basePath, file)
      return {
        name: resolvedName,
        driver,
        location: filename,
        knexConfig: {
          client: SqliteClient, // the better-sqlite3 build for this Node
          useNullAsDefault: true,
          acquireConnectionTimeout,
          connection: { filename, ...config.options },
          pool: {
            // One connection: SQLite has a single writer, and `:memory:` must stay one database.
            min: 1,
            max: 1,
            // A handle that was closed (I/O error, closed by app code) is replaced on the next
            // checkout instead of failing every later query: recovery without a restart.
            validate: (raw: RawSqliteConnection) => raw.open,
            afterCreate(raw: RawSqliteConnection, done: (error: Error | null, raw: RawSqliteConnection) => void) {
              try {
                if (!memory) raw.pragma('journal_mode = WAL')
                raw.pragma('foreign_keys = ON')
                raw.pragma('busy_timeout = 5000')
                done(null, raw)
              } catch (error) {
                done(error as Error, raw)
              }
            },
          },
        },
      }
    }
    const url = typeof config.url === 'string' ? config.url : ''
    if (!url) {
      throw new FrameworkError(
        'E_DATABASE_CONFIG',
        `Database connection "${resolvedName}" (${driver}) needs a URL: set DATABASE_URL (config/database.ts).`,
      )
    }
    if (driver === 'postgres') {
      return {
        name: resolvedName,
        driver,
        location: hostOf(url, 5432),
        knexConfig: {
          client: 'pg',
          acquireConnectionTimeout,
          connection: { connectionString: url, ...config.options },
          pool,
        },
      }
    }
    return {
      name: resolvedName,
      driver,
      location: hostOf(url, 3306),
      knexConfig: {
        client: 'mysql2',
        acquireConnectionTimeout,
        connection: {
          uri: url,
          supportBigNumbers: true,
          charset: 'utf8mb4',
          // Dates are written and read as UTC, so processes in different time zones agree.
          timezone: 'Z',
          ...config.options,
        } as Knex.MySql2ConnectionConfig,
        pool,
      },
    }
  }
}

const DEFAULT_MANAGER = Symbol.for('trowel.database.default')
type GlobalWithManager = typeof globalThis & { [DEFAULT_MANAGER]?: DatabaseManager }

/**
 * Sets the process-wide default manager used by `db()` and `Model`. Kept on `globalThis` so two
 * copies of this module (source and build) still share it. Pass `undefined` to unset.
 */
export function setDatabase(manager: DatabaseManager | undefined): void {
  ;(globalThis as GlobalWithManager)[DEFAULT_MANAGER] = manager
}

/** The default manager; throws a `FrameworkError` when none was set. */
export function getDatabase(): DatabaseManager {
  const manager = (globalThis as GlobalWithManager)[DEFAULT_MANAGER]
  if (!manager) {
    throw new FrameworkError('E_DATABASE_NOT_CONFIGURED', 'No database is configured: call setDatabase(new DatabaseManager(DATABASES)) at boot.')
  }
  return manager
}

/** True when a database manager has been set (the app booted with config/database.ts). */
export function hasDatabase(): boolean {
  return Boolean((globalThis as GlobalWithManager)[DEFAULT_MANAGER])
}

/** The knex instance of the default manager's `connection` (its default connection when omitted). */
export function db(connection?: string): Knex {
  return getDatabase().connection(connection)
}
