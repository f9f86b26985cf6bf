/**
 * @module auth/throttle
 * The attempt budgets (`Budget`), the older `LoginThrottle`, and the fixed-window stores they
 * count in (memory, Redis, database).
 */
export { LoginThrottle, type LoginThrottleOptions } from './login-throttle.js'
export type { ThrottleEntry, ThrottleStore } from './throttle-store.js'
export { MemoryThrottleStore, MEMORY_ENTRY_BYTES, type MemoryThrottleStoreOptions } from './memory-throttle-store.js'
export { Budget, type BudgetSlot } from './budget.js'
export { clientKey } from './client-key.js'
export { RedisThrottleStore, type RedisThrottleStoreOptions } from './redis-throttle-store.js'
export {
  DatabaseThrottleStore,
  THROTTLE_TABLE,
  throttleTableMigration,
  type DatabaseThrottleStoreOptions,
} from './database-throttle-store.js'
