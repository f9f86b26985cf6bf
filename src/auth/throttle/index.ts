/**
 * @module auth/throttle
 * Login throttling and the fixed-window stores it can count in (memory, Redis, database).
 */
export { LoginThrottle, type LoginThrottleOptions } from './login-throttle.js'
export type { ThrottleEntry, ThrottleStore } from './throttle-store.js'
export { MemoryThrottleStore, type MemoryThrottleStoreOptions } from './memory-throttle-store.js'
export { RedisThrottleStore, type RedisThrottleStoreOptions } from './redis-throttle-store.js'
export {
  DatabaseThrottleStore,
  THROTTLE_TABLE,
  throttleTableMigration,
  type DatabaseThrottleStoreOptions,
} from './database-throttle-store.js'
