/**
 * @module auth/hashing/fair-queue
 * The waiting room of the hashing pool: jobs wait in one first-come-first-served line per client
 * (jobs without a client share one line), and the lines are served round-robin: a free thread
 * takes the first job of the next line in the rotation. A client's flood of a thousand checks
 * therefore delays another client's single check by at most one job per client with work waiting,
 * not by the thousand.
 *
 * Each job may wait until its deadline (`maxWaitMs` after it arrived) and no longer: when the
 * deadline comes it leaves the queue (`onDrop(entry, 'expired')`) and `take()` never hands out a
 * job whose deadline has passed. A job whose `signal` aborts while it waits leaves at once
 * (`onDrop(entry, 'aborted')`). The queue only decides order and removal; running the jobs, and
 * answering the dropped ones, is the pool's business.
 *
 * Pure logic: the clock and its timers are injected (`QueueClock`), so tests drive it with a fake
 * clock and fake workers.
 */
/** Time and one-shot timers, in milliseconds. */
export interface QueueClock {
  now(): number
  /** Calls `fn` once, `ms` from now; returns a handle for `clearTimer`. */
  setTimer(fn: () => void, ms: number): unknown
  clearTimer(handle: unknown): void
}

/** `performance.now()` and timers that do not keep the process alive. */
export const REAL_CLOCK: QueueClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

/** Why an entry left the queue without being taken. */
export type DropReason = 'expired' | 'aborted'

/** A job waiting in the queue. */
export interface QueueEntry<T> {
  readonly item: T
  /** The line it waits in: its client's key, or `''` (the shared line). */
  readonly client: string
  /** When it arrived (clock time, ms). */
  readonly enqueuedAt: number
  /** The clock time after which it must not start; `Infinity`: none. */
  readonly deadline: number
}

export interface PushOptions {
  /** The client's key (an address, an IPv6 /64: `auth/throttle/client-key`); none or `''`: the shared line. */
  client?: string
  /** How long the job may wait to be taken (ms); default `Infinity`. */
  maxWaitMs?: number
  /** Aborting it takes the job out of the queue (`onDrop(entry, 'aborted')`). */
  signal?: AbortSignal
}

export interface FairQueueOptions<T> {
  clock?: QueueClock
  /** `false`: one line for everybody, first come first served. Default `true`. */
  fair?: boolean
  /** An entry left the queue without being taken: its deadline came, or its signal aborted. */
  onDrop?: (entry: QueueEntry<T>, reason: DropReason) => void
}

interface Line<T> {
  readonly client: string
  readonly entries: Entry<T>[]
}

interface Entry<T> extends QueueEntry<T> {
  readonly line: Line<T>
  timer: unknown
  signal: AbortSignal | undefined
  onAbort: (() => void) | undefined
}

export class FairQueue<T> {
  readonly fair: boolean
  readonly #clock: QueueClock
  readonly #onDrop: (entry: QueueEntry<T>, reason: DropReason) => void
  readonly #lines = new Map<string, Line<T>>()
  /** The lines with jobs waiting, in rotation order; `#next` indexes the one served next. */
  readonly #ring: Line<T>[] = []
  #next = 0
  #length = 0

  constructor(options: FairQueueOptions<T> = {}) {
    this.fair = options.fair ?? true
    this.#clock = options.clock ?? REAL_CLOCK
    this.#onDrop = options.onDrop ?? (() => {})
  }

  /** Jobs waiting, all clients together. */
  get length(): number {
    return this.#length
  }

  /** Clients (lines) with jobs waiting. */
  get clients(): number {
    return this.#ring.length
  }

  /**
   * Adds `item` at the end of its client's line. Returns its entry, or `null` (nothing queued)
   * when `signal` is already aborted.
   */
  push(item: T, options: PushOptions = {}): QueueEntry<T> | null {
    if (options.signal?.aborted) return null
    const key = this.#key(options.client)
    let line = this.#lines.get(key)
    if (!line) {
      line = { client: key, entries: [] }
      this.#lines.set(key, line)
      // Last in the rotation: just before the line served next.
      this.#ring.splice(this.#next, 0, line)
      if (this.#ring.length > 1) this.#next++
    }
    const now = this.#clock.now()
    const maxWaitMs = options.maxWaitMs ?? Infinity
    const entry: Entry<T> = {
      item,
      client: key,
      enqueuedAt: now,
      deadline: now + Math.max(0, maxWaitMs),
      line,
      timer: undefined,
      signal: options.signal,
      onAbort: undefined,
    }
    line.entries.push(entry)
    this.#length++
    if (Number.isFinite(entry.deadline)) {
      entry.timer = this.#clock.setTimer(() => this.#drop(entry, 'expired'), Math.max(0, maxWaitMs))
    }
    if (entry.signal) {
      entry.onAbort = () => this.#drop(entry, 'aborted')
      entry.signal.addEventListener('abort', entry.onAbort, { once: true })
    }
    return entry
  }

  /**
   * Removes and returns the first job of the next line in the rotation, or `undefined` when
   * nothing waits. A job found past its deadline (a late timer) or aborted is dropped on the way
   * (`onDrop`), never returned.
   */
  take(): QueueEntry<T> | undefined {
    while (this.#ring.length > 0) {
      if (this.#next >= this.#ring.length) this.#next = 0
      const line = this.#ring[this.#next]!
      const entry = line.entries.shift()!
      this.#length--
      if (line.entries.length === 0) this.#removeLine(line, this.#next)
      else this.#next = (this.#next + 1) % this.#ring.length
      this.#release(entry)
      if (entry.signal?.aborted) this.#onDrop(entry, 'aborted')
      else if (this.#clock.now() > entry.deadline) this.#onDrop(entry, 'expired')
      else return entry
    }
    return undefined
  }

  /** Empties the queue without calling `onDrop`; returns the items that were waiting. */
  clear(): T[] {
    const items: T[] = []
    for (const line of this.#ring) {
      for (const entry of line.entries) {
        this.#release(entry)
        items.push(entry.item)
      }
    }
    this.#ring.length = 0
    this.#lines.clear()
    this.#next = 0
    this.#length = 0
    return items
  }

  #key(client: string | undefined): string {
    return this.fair && typeof client === 'string' ? client : ''
  }

  /** Takes `entry` out of its line (if still there) and tells `onDrop`. */
  #drop(entry: Entry<T>, reason: DropReason): void {
    const line = entry.line
    const index = line.entries.indexOf(entry)
    if (index === -1) return
    line.entries.splice(index, 1)
    this.#length--
    if (line.entries.length === 0) this.#removeLine(line, this.#ring.indexOf(line))
    this.#release(entry)
    this.#onDrop(entry, reason)
  }

  #removeLine(line: Line<T>, index: number): void {
    this.#ring.splice(index, 1)
    this.#lines.delete(line.client)
    if (index < this.#next) this.#next--
    if (this.#next >= this.#ring.length) this.#next = 0
  }

  #release(entry: Entry<T>): void {
    if (entry.timer !== undefined) this.#clock.clearTimer(entry.timer)
    entry.timer = undefined
    if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort)
    entry.onAbort = undefined
  }
}

