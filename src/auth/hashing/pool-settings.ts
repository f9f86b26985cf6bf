/**
 * @module auth/hashing/pool-settings
 * The hashing pool's settings and counters (hash-pool): how a job waits, the pool's options and
 * statistics, the threads' niceness and how many background threads a process gets.
 */
import { availableParallelism } from 'node:os'
import type { QueueClock } from './fair-queue.js'

/** How one job waits: whose it is, how long it may wait, and who is told how long it waited. */
export interface RunOptions {
  /** The client's queue key (`clientKey(ip)` of auth/throttle/client-key); none: the shared line. */
  client?: string
  /** Aborted: the job leaves the queue (or, running, its result is thrown away): `HashAbortedError`. */
  signal?: AbortSignal
  /** How long the job may wait for a thread (ms); default `Infinity`. Longer: `ServerBusyError`. */
  maxWaitMs?: number
  /** Called with the milliseconds the job waited, when a thread takes it. */
  onWait?: (ms: number) => void
}

/** The reserve thread's niceness: about a quarter of a core contended by the event loop (nice 0). */
export const RESERVE_NICE = 5

export interface HashPoolOptions {
  /** Background threads' niceness on Linux; default `HASH_NICE`, else 19. */
  nice?: number
  /** How long the background threads may finish nothing while jobs wait before the reserve helps (ms, default 1000). */
  starvedAfterMs?: number
  /** Round-robin per client (default, unless `HASH_FAIR=0`); `false`: one first-come-first-served line. */
  fair?: boolean
  /** The waiting room's clock and timers (tests); default `performance.now()` and `setTimeout`. */
  clock?: QueueClock
  /** A thread idle this long (ms, default 30,000) stops; the next job starts one again. */
  idleMs?: number
}

/** How the pool has fared since it was made, for tests and metrics. */
export interface HashPoolStats {
  /** Jobs handed to a thread. */
  started: number
  /** Jobs that finished (with a result or a job error). */
  finished: number
  /** Jobs whose `maxWaitMs` passed while they waited. */
  expired: number
  /** Jobs whose `signal` aborted while they waited (never run). */
  aborted: number
  /** Starved jobs run again on the reserve (not counted in `started`). */
  hedged: number
}

/** Background threads per process: the cores this process may use, shared out among the processes of `craft serve --workers N` (TROWEL_WORKERS). */
export function defaultPoolSize(): number {
  const processes = Number(process.env.TROWEL_WORKERS)
  const share = Number.isInteger(processes) && processes > 1 ? processes : 1
  return Math.max(1, Math.ceil(availableParallelism() / share))
}

/** The niceness background hashing threads run at: `HASH_NICE` (0-19), else 19. */
export function hashNice(value: string | undefined): number {
  const n = Number(value)
  return value !== undefined && value.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= 19 ? n : 19
}
