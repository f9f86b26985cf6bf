/**
 * @module database/database-provider
 * Binds `db.manager` from `config/database.ts` (`DATABASES`; env-driven defaults when the file is
 * absent), makes it the default for models, checks the connection when serving (one clear line
 * naming the connection if it is down), maps lost connections to 503 `E_UNAVAILABLE` and closes
 * pools on shutdown.
 */
import { ServiceProvider } from '../foundation/service-provider.js'
import { DatabaseManager, setDatabase, type DatabasesConfig } from './database-manager.js'
import { translateDatabaseError } from './errors.js'
import type { ExceptionHandler } from '../http/exception-handler.js'

/** What an app without `config/database.ts` gets: SQLite, or DB_CONNECTION + DATABASE_URL. */
export function defaultDatabasesConfig(): DatabasesConfig {
  const url = process.env.DATABASE_URL
  return {
    default: process.env.DB_CONNECTION || 'sqlite',
    sqlite: { driver: 'sqlite', database: process.env.DB_DATABASE || 'storage/database.sqlite' },
    postgres: { driver: 'postgres', url, pool: { min: 0, max: 10 } },
    mysql: { driver: 'mysql', url, pool: { min: 0, max: 10 } },
  } as DatabasesConfig
}

export function databaseManagerFor(config: DatabasesConfig | undefined, basePath: string): DatabaseManager {
  return new DatabaseManager(config ?? defaultDatabasesConfig(), basePath)
}

export class DatabaseProvider extends ServiceProvider {
  override register(): void {
    const app = this.application
    const manager = databaseManagerFor(app.config('database')?.DATABASES, app.basePath)
    setDatabase(manager)
    app.bind('db.manager', manager)
    app.onShutdown(() => manager.close())
    if (app.has('exceptions')) app.make<ExceptionHandler>('exceptions').translators.push((e) => translateDatabaseError(e))
  }

  override async boot(): Promise<void> {
    if (this.application.get('app.mode') === 'http') await this.application.make<DatabaseManager>('db.manager').check()
  }
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    'db.manager': DatabaseManager
  }
}

declare module '../foundation/config-files.js' {
  interface ConfigFiles {
    database: { DATABASES?: DatabasesConfig }
  }
}
