/**
 * @module auth/throttle/create-throttle-store
 * Picks where failed-login counts live: `THROTTLE_DRIVER` (memory, database, redis); else the
 * session driver when that is shared (database, redis); else `redis` when `REDIS_URL` is set;
 * else `database` when the app uses a database server (`DB_CONNECTION` postgres or mysql: other
 * processes or machines may share it) or serves several worker processes (`TROWEL_WORKERS` > 1,
 * set by `craft serve --workers`); else memory (one process on SQLite).
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { Application } from '../../foundation/application.js'
import { connectionOf } from '../../database/app-database.js'
import type { ThrottleStore } from './throttle-store.js'
import { MemoryThrottleStore } from './memory-throttle-store.js'
import { RedisThrottleStore } from './redis-throttle-store.js'
import { DatabaseThrottleStore } from './database-throttle-store.js'
import { AutoCreatingThrottleStore } from './auto-creating-throttle-store.js'

// ioredis is loaded only when a redis driver is configured (it costs start-up time and memory).
const requireModule = createRequire(import.meta.url)

const SERVER_DATABASES = new Set(['postgres', 'pg', 'postgresql', 'mysql', 'mysql2', 'mariadb'])

/**
 * Fail fast while Redis is unreachable, and come back by itself: no offline queue (a command
 * while disconnected is refused at once, and the budget answers 503 E_UNAVAILABLE instead of
 * holding the request), one retry, short connect and command timeouts; ioredis's default
 * reconnect strategy (every 50 ms growing to 2 s, forever) brings it back without a restart.
 */
export const REDIS_OPTIONS = Object.freeze({
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  commandTimeout: 2000,
})

/**
 * `trowel:throttle:<scope>:`, the scope a digest of APP_KEY: every process of one app (one
 * APP_KEY) shares its budgets, and two apps sharing one Redis never do (their user #1, their
 * clients' addresses). Rotating APP_KEY starts the budgets afresh.
 */
export function redisPrefix(appKey: string | undefined = process.env.APP_KEY): string {
  const scope = appKey ? createHash('sha256').update(`trowel throttle scope\u0000${appKey}`).digest('hex').slice(0, 16) : 'default'
  return `trowel:throttle:${scope}:`
}

export type ThrottleDriver = 'memory' | 'database' | 'redis'

/** The driver the environment selects (see the module comment). */
export function throttleDriver(): ThrottleDriver {
  const explicit = (process.env.THROTTLE_DRIVER ?? '').toLowerCase()
  if (explicit === 'memory' || explicit === 'database' || explicit === 'redis') return explicit
  const session = (process.env.SESSION_DRIVER ?? '').toLowerCase()
  if (session === 'database' || session === 'redis') return session
  if (process.env.REDIS_URL) return 'redis'
  if (SERVER_DATABASES.has((process.env.DB_CONNECTION ?? '').toLowerCase())) return 'database'
  return Number(process.env.TROWEL_WORKERS ?? '1') > 1 ? 'database' : 'memory'
}

/** The store of the selected driver; a Redis connection is closed when the app shuts down. */
export function createThrottleStore(app: Application): ThrottleStore {
  const driver = throttleDriver()
  if (driver === 'redis') {
    const { Redis } = requireModule('ioredis') as typeof import('ioredis')
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { ...REDIS_OPTIONS })
    // While Redis is down every budget answers 503 E_UNAVAILABLE; say so once per outage, not per request.
    let down = false
    let closing = false
    const lost = (error?: Error) => {
      if (down || closing) return
      down = true
      app.log.warn('throttle.redis_unavailable', { error: error?.message ?? 'connection closed' })
    }
    redis.on('error', lost)
    redis.on('close', () => lost())
    redis.on('ready', () => {
      if (down) app.log.info('throttle.redis_available', {})
      down = false
    })
    app.onShutdown(() => {
      closing = true
      return redis.quit().catch(() => redis.disconnect())
    })
    return new RedisThrottleStore(redis, { prefix: redisPrefix() })
  }
  if (driver === 'database') return new AutoCreatingThrottleStore(new DatabaseThrottleStore(connectionOf(app)), () => connectionOf(app))
  return new MemoryThrottleStore()
}
