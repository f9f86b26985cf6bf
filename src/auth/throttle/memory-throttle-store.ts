/**
 * @module auth/throttle/memory-throttle-store
 * A `ThrottleStore` in this process's memory: right for a single process and for tests.
 *
 * Its size is fixed, in entries and in bytes: a key longer than 64 characters is stored as its
 * SHA-256 (the budgets already use 64-character digests), so every entry costs at most
 * `MEMORY_ENTRY_BYTES`, and the store holds at most `capacity` entries
 * (`min(maxEntries, maxBytes / MEMORY_ENTRY_BYTES)`).
 *
 * When a new key needs room, ended windows go first, then the oldest window that is not an
 * active lockout (a key whose count reached the `limit` passed to `hit`). A lockout is never
 * evicted, so filling the store with other keys cannot end it. When every entry is an active
 * lockout the new key is not stored and its hit is answered as over any limit (fail closed).
 *
 * Entries are grouped by window length; inside a group, opening order is also ending order, so
 * finding ended windows and the oldest evictable one costs O(number of window lengths).
 */
import { sha256Hex } from '../tokens/sha256-hex.js'
import { assertWindow, secondsUntil, type ThrottleEntry, type ThrottleStore } from './throttle-store.js'

/**
 * An upper bound of what one entry costs on the V8 heap: the key (at most 64 one-byte
 * characters), its window record, and its slots in two hash maps (measured about 250 bytes).
 */
export const MEMORY_ENTRY_BYTES = 320

/** The longest key stored as is; longer keys are stored as their SHA-256 (64 hex characters). */
const MAX_KEY_LENGTH = 64

export interface MemoryThrottleStoreOptions {
  /** Most keys kept at once. Default 100,000. */
  maxEntries?: number
  /** Most bytes the entries may take (estimated as `MEMORY_ENTRY_BYTES` each). Default 32 MiB. */
  maxBytes?: number
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number
}

interface Window {
  key: string
  count: number
  resetAt: number
  windowMs: number
  /** The budget's attempts, when the caller said; the entry is locked once `count >= limit`. */
  limit: number | undefined
  locked: boolean
}

/**
 * @example
 * const budget = new Budget('login', new MemoryThrottleStore(), { attempts: 5, minutes: 1 })
 */
export class MemoryThrottleStore implements ThrottleStore {
  readonly maxEntries: number
  readonly maxBytes: number
  /** The most entries held at once: `min(maxEntries, floor(maxBytes / MEMORY_ENTRY_BYTES))`. */
  readonly capacity: number
  readonly #now: () => number
  readonly #windows = new Map<string, Window>()
  /** Evictable windows, per window length, in opening (= ending) order. */
  readonly #open = new Map<number, Map<string, Window>>()
  /** Active lockouts, per window length, in locking order. */
  readonly #locked = new Map<number, Map<string, Window>>()
  #nextFullSweep = 0

  constructor(options: MemoryThrottleStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) {
      throw new RangeError('MemoryThrottleStore maxEntries must be a positive integer.')
    }
    if (!Number.isFinite(this.maxBytes) || this.maxBytes < MEMORY_ENTRY_BYTES) {
      throw new RangeError(`MemoryThrottleStore maxBytes must be at least ${MEMORY_ENTRY_BYTES}.`)
    }
    this.capacity = Math.min(this.maxEntries, Math.floor(this.maxBytes / MEMORY_ENTRY_BYTES))
    this.#now = options.now ?? Date.now
  }

  /** Number of keys currently held (ended windows may linger until the next new key). */
  get size(): number {
    return this.#windows.size
  }

  /** The bytes the entries may take at most, now (`size × MEMORY_ENTRY_BYTES`). */
  get bytes(): number {
    return this.#windows.size * MEMORY_ENTRY_BYTES
  }

  /** Number of keys held that are active lockouts. */
  get lockouts(): number {
    let count = 0
    for (const group of this.#locked.values()) count += group.size
    return count
  }

  async hit(key: string, windowSeconds: number, limit?: number): Promise<ThrottleEntry> {
    assertWindow(windowSeconds)
    const now = this.#now()
    const id = storedKey(key)
    let window = this.#windows.get(id)
    if (window !== undefined && window.resetAt <= now) {
      this.#remove(window)
      window = undefined
    }
    if (window === undefined) {
      if (!this.#makeRoom(now)) {
        // Full of active lockouts: refuse rather than end one (fail closed). Retry once the first
        // of them ends.
        return { count: Number.MAX_SAFE_INTEGER, resetInSeconds: this.#firstLockoutEnd(now) }
      }
      const windowMs = Math.max(1, Math.ceil(windowSeconds * 1000))
      window = { key: id, count: 0, resetAt: now + windowMs, windowMs, limit, locked: false }
      this.#windows.set(id, window)
      group(this.#open, windowMs).set(id, window)
    }
    window.count++
    if (limit !== undefined) window.limit = limit
    if (!window.locked && window.limit !== undefined && window.count >= window.limit) {
      this.#open.get(window.windowMs)?.delete(id)
      group(this.#locked, window.windowMs).set(id, window)
      window.locked = true
    }
    return { count: window.count, resetInSeconds: secondsUntil(window.resetAt, now) }
  }

  async get(key: string): Promise<ThrottleEntry | null> {
    const now = this.#now()
    const window = this.#windows.get(storedKey(key))
    if (window === undefined) return null
    if (window.resetAt <= now) {
      this.#remove(window)
      return null
    }
    return { count: window.count, resetInSeconds: secondsUntil(window.resetAt, now) }
  }

  async clear(key: string): Promise<void> {
    const window = this.#windows.get(storedKey(key))
    if (window !== undefined) this.#remove(window)
  }

  #remove(window: Window): void {
    this.#windows.delete(window.key)
    const groups = window.locked ? this.#locked : this.#open
    const members = groups.get(window.windowMs)
    members?.delete(window.key)
    if (members?.size === 0) groups.delete(window.windowMs)
  }

  /** Drops ended windows; when still full, the oldest evictable one. False: only lockouts are left. */
  #makeRoom(now: number): boolean {
    for (const groups of [this.#open, this.#locked]) {
      for (const members of [...groups.values()]) {
        for (const window of members.values()) {
          if (window.resetAt > now) break
          this.#remove(window)
        }
      }
    }
    if (this.#windows.size < this.capacity) return true
    let oldest: Window | undefined
    for (const members of this.#open.values()) {
      const first = members.values().next().value as Window | undefined
      if (first && (oldest === undefined || first.resetAt - first.windowMs < oldest.resetAt - oldest.windowMs)) oldest = first
    }
    if (oldest !== undefined) {
      this.#remove(oldest)
      return true
    }
    // Only lockouts: their groups are in locking order, so an ended one may sit behind one still
    // running. Look at all of them, at most once a second (a full store must not cost a scan per request).
    if (now < this.#nextFullSweep) return false
    this.#nextFullSweep = now + 1000
    for (const members of [...this.#locked.values()]) {
      for (const window of members.values()) if (window.resetAt <= now) this.#remove(window)
    }
    return this.#windows.size < this.capacity
  }

  /** Seconds until the first lockout at the front of its group ends (when room may be made again). */
  #firstLockoutEnd(now: number): number {
    let end = Number.POSITIVE_INFINITY
    for (const members of this.#locked.values()) {
      const first = members.values().next().value as Window | undefined
      if (first) end = Math.min(end, first.resetAt)
    }
    return Number.isFinite(end) ? secondsUntil(end, now) : 1
  }
}

function group(groups: Map<number, Map<string, Window>>, windowMs: number): Map<string, Window> {
  let members = groups.get(windowMs)
  if (!members) groups.set(windowMs, (members = new Map()))
  return members
}

function storedKey(key: string): string {
  return key.length > MAX_KEY_LENGTH ? sha256Hex(key) : key
}
