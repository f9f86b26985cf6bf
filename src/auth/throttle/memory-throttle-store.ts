/**
 * @module auth/throttle/memory-throttle-store
 * A `ThrottleStore` in this process's memory: right for a single process and for tests. Entries
 * expire with their window, and the store never holds more than `maxEntries` keys (when full,
 * expired entries go first, then the oldest window).
 */
import { assertWindow, secondsUntil, type ThrottleEntry, type ThrottleStore } from './throttle-store.js'

export interface MemoryThrottleStoreOptions {
  /** Most keys kept at once. Default 100,000 (a few MB). */
  maxEntries?: number
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number
}

interface Window {
  count: number
  resetAt: number
}

/**
 * @example
 * const throttle = new LoginThrottle(new MemoryThrottleStore())
 */
export class MemoryThrottleStore implements ThrottleStore {
  readonly maxEntries: number
  readonly #now: () => number
  /** Insertion order is window-opening order, so the first entries are the oldest. */
  readonly #windows = new Map<string, Window>()

  constructor(options: MemoryThrottleStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) {
      throw new RangeError('MemoryThrottleStore maxEntries must be a positive integer.')
    }
    this.#now = options.now ?? Date.now
  }

  /** Number of keys currently held (expired ones may linger until the next write). */
  get size(): number {
    return this.#windows.size
  }

  async hit(key: string, windowSeconds: number): Promise<ThrottleEntry> {
    assertWindow(windowSeconds)
    const now = this.#now()
    let window = this.#windows.get(key)
    if (window === undefined || window.resetAt <= now) {
      this.#windows.delete(key)
      this.#makeRoom(now)
      window = { count: 0, resetAt: now + windowSeconds * 1000 }
      this.#windows.set(key, window)
    }
    window.count++
    return { count: window.count, resetInSeconds: secondsUntil(window.resetAt, now) }
  }

  async get(key: string): Promise<ThrottleEntry | null> {
    const now = this.#now()
    const window = this.#windows.get(key)
    if (window === undefined) return null
    if (window.resetAt <= now) {
      this.#windows.delete(key)
      return null
    }
    return { count: window.count, resetInSeconds: secondsUntil(window.resetAt, now) }
  }

  async clear(key: string): Promise<void> {
    this.#windows.delete(key)
  }

  /** Drops expired windows from the front, then the oldest while the store is full. */
  #makeRoom(now: number): void {
    for (const [key, window] of this.#windows) {
      if (window.resetAt > now && this.#windows.size < this.maxEntries) break
      this.#windows.delete(key)
    }
  }
}
