/**
 * @module session/create-session-store
 * Builds the store for the configured driver. The `database` driver uses the app's Knex instance,
 * found on first use: the container's `db.knex`, `knex`, `db`, `db.manager` or `database` binding
 * (a Knex instance or a `DatabaseManager`), else none (an error naming the setting). The
 * `redis` driver connects to `redis_url`/`REDIS_URL` and closes the connection on shutdown.
 */
import type { Knex } from 'knex'
import { FrameworkError } from '../foundation/framework-error.js'
import type { Application } from '../foundation/application.js'
import { resolveSessionConfig, type SessionConfig } from './session-config.js'
import type { SessionStore } from './session-store.js'
import { CookieSessionStore } from './stores/cookie-session-store.js'
import { DatabaseSessionStore } from './stores/database-session-store.js'
import { MemorySessionStore } from './stores/memory-session-store.js'
import { RedisSessionStore } from './stores/redis-session-store.js'

/** Container keys searched, in order, for the Knex instance the `database` driver uses. */
export const KNEX_BINDINGS = ['db.knex', 'knex', 'db', 'db.manager', 'database'] as const

export function createSessionStore(app: Application, config: SessionConfig = resolveSessionConfig(app)): SessionStore {
  switch (config.driver) {
    case 'cookie':
      return new CookieSessionStore()
    case 'memory':
      return new MemorySessionStore()
    case 'database':
      return new DatabaseSessionStore(() => findKnex(app), { table: config.table })
    case 'redis': {
      const store = new RedisSessionStore(config.redis_url)
      app.onShutdown?.(() => store.close())
      return store
    }
  }
}

function findKnex(app: Application): Knex {
  for (const key of KNEX_BINDINGS) {
    if (!app.has(key)) continue
    const value = app.make(key) as unknown
    if (typeof value === 'function' && 'schema' in value) return value as Knex
    const manager = value as { connection?: unknown } | null
    if (manager && typeof manager.connection === 'function') return (manager.connection as () => Knex)()
  }
  throw new FrameworkError('E_SESSION_CONFIG', 'config/session.ts: SESSION.driver "database" needs a database connection, but none is configured (config/database.ts).')
}
