/**
 * @module auth/throttle/throttle-store
 * The contract of a fixed-window attempt counter. The attempt budgets (`Budget`) count in one;
 * Trowel ships a memory store (one process), a Redis store and a database store (shared by every
 * process of an app).
 */

/** The state of one key's current window. */
export interface ThrottleEntry {
  /** Hits counted in the current window. */
  count: number
  /** Whole seconds (at least 1) until the window ends and the count starts again from zero. */
  resetInSeconds: number
}

/**
 * A fixed-window counter. The first `hit` of a key opens a window of `windowSeconds`; later hits
 * in that window only increment the count; once the window ends the key is gone.
 */
export interface ThrottleStore {
  /**
   * Counts one hit, atomically across every process sharing the store, and returns the new state.
   * `limit` (optional) is the budget's number of attempts: a store that must evict keys (the
   * memory store) uses it to tell an active lockout (`count >= limit`) from a key it may drop.
   * Shared stores ignore it.
   */
  hit(key: string, windowSeconds: number, limit?: number): Promise<ThrottleEntry>
  /** The current window's state, or `null` when the key has none. */
  get(key: string): Promise<ThrottleEntry | null>
  /** Forgets the key (e.g. after a successful login). */
  clear(key: string): Promise<void>
}

/** Seconds left until `resetAtMs`, rounded up, never below 1. */
export function secondsUntil(resetAtMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000))
}

/** Checks a window length once, so a misconfigured throttle fails loudly. */
export function assertWindow(windowSeconds: number): void {
  if (typeof windowSeconds !== 'number' || !Number.isFinite(windowSeconds) || windowSeconds <= 0) {
    throw new RangeError(`A throttle window must be a positive number of seconds, got ${String(windowSeconds)}.`)
  }
}
