/**
 * @module database/retry-deadlock
 * Runs a transaction again when the database chose it as a deadlock victim (MySQL/MariaDB
 * `ER_LOCK_DEADLOCK` 1213, PostgreSQL `40P01`). Such a transaction was rolled back whole, so
 * running it again is safe; conditional updates inside it then see what the winner committed.
 */

/** Whether `error` is a deadlock the database resolved by rolling this transaction back. */
export function isDeadlock(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | null
  return e !== null && typeof e === 'object' && (e.code === 'ER_LOCK_DEADLOCK' || e.errno === 1213 || e.code === '40P01')
}

/** `run()`, again up to `attempts - 1` times while it fails with a deadlock. */
export async function retryOnDeadlock<T>(run: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run()
    } catch (error) {
      if (attempt >= attempts || !isDeadlock(error)) throw error
      // A short, growing, jittered pause so the retries do not collide again.
      await new Promise((resolve) => setTimeout(resolve, attempt * 5 + Math.random() * 10))
    }
  }
}
