/**
 * @module auth/hashing/hash-pool
 * Where password hashing runs: worker threads that use the CPU the rest of the process leaves
 * idle, with a reserve thread so that a busy server cannot lock logins out.
 *
 * Hashing is meant to be slow (argon2id, about 12 ms of one core). At the event loop's priority a
 * burst of logins would take every core while every other request waited behind it. On Linux:
 *
 * - **Background threads** (one per core the process may use, shared out among `serve --workers`
 *   processes) run at nice 19 (`HASH_NICE`, 0-19): the kernel runs them when the event loop has
 *   nothing to do and switches back as soon as a request arrives, so logins in flight barely
 *   delay other requests (`npm run test:soak` checks the JWT route's p99 beside 20 logins).
 * - **The reserve thread** runs at nice 5, so that busy cores cannot lock logins out: when the
 *   background threads have finished nothing for `starvedAfterMs` (1 s) while jobs wait, it runs
 *   the jobs they hold again, then the waiting ones (#helpIfStarved); a lone job that has run
 *   that long is run again on it too (#hedgeIfStarved). The first copy to finish answers.
 *
 * The measurements behind these choices are in bench/RESULTS.md.
 *
 * `setpriority` applies to the calling thread on Linux only; elsewhere it would lower the whole
 * process, so there every thread keeps the normal priority and there is no reserve.
 *
 * Jobs wait in one line per client, served round-robin (see fair-queue): a free thread takes the
 * next job of the next client, so one client's flood delays another's check by about one job per
 * client with work waiting. `HASH_FAIR=0` makes it one first-come-first-served line (kept for the
 * flood benchmark's comparison, not for production). A job that could not start within its
 * `maxWaitMs` leaves the queue then and fails with `ServerBusyError` (503); it is not refused on
 * arrival, since a client refused at once asks again at once and instant 503s take the CPU the
 * threads need (bench/RESULTS.md, "Login under a flood"). A job whose `signal` aborts while it
 * waits fails with `HashAbortedError`; a running one finishes (argon2 cannot be interrupted) and
 * its result is thrown away.
 *
 * Threads start on the first job (an app that never hashes pays nothing), do not keep the process
 * alive when idle, stop after `idleMs` (30 s) without a job (each holds about 10 MB: its own V8
 * heap and what argon2's 19 MiB left in its allocator; the next job starts a thread again, about
 * 30 ms), and a thread that dies is replaced (its job fails, the next one runs).
 */
import { Worker } from 'node:worker_threads'
import { createRequire } from 'node:module'
import { ServerBusyError } from '../../http/errors.js'
import { FairQueue, REAL_CLOCK, type QueueClock, type QueueEntry } from './fair-queue.js'
import { RESERVE_NICE, defaultPoolSize, hashNice, type HashPoolOptions, type HashPoolStats, type RunOptions } from './pool-settings.js'
import { HashAbortedError, HashJobError, WORKER_SOURCE, type HashJob } from './hash-worker.js'

export { HashAbortedError, HashJobError, type HashJob }
export { RESERVE_NICE, hashNice, type RunOptions, type HashPoolOptions, type HashPoolStats } from './pool-settings.js'

interface Pending {
  job: HashJob
  /** Copies of the job running now (2 while a starved one also runs on the reserve). */
  running: number
  /** Answered (by the first copy to finish, or failed); later copies' results are dropped. */
  settled: boolean
  /** Already run again on the reserve (at most once). */
  hedged: boolean
  resolve: (value: unknown) => void
  reject: (error: Error) => void
  signal: AbortSignal | undefined
  maxWaitMs: number
  onWait: ((ms: number) => void) | undefined
}

interface Slot {
  worker: Worker
  busy: Pending | null
  /** Stops the thread once it has been idle for `idleMs`. */
  idleTimer: NodeJS.Timeout | null
  /** When the job in `busy` was handed over (performance.now()). */
  startedAt: number
}

const requireModule = createRequire(import.meta.url)


interface WorkerData {
  argon2: string
  bcrypt: string
  nice: number
}

export class HashPool {
  readonly size: number
  /** The background threads' niceness (0 off Linux). */
  readonly nice: number
  readonly starvedAfterMs: number
  readonly idleMs: number
  /** Jobs wait here, one line per client, served round-robin (one line for all when not `fair`). */
  readonly fair: boolean
  readonly #slots: Slot[] = []
  readonly #queue: FairQueue<Pending>
  readonly #clock: QueueClock
  readonly #stats: HashPoolStats = { started: 0, finished: 0, expired: 0, aborted: 0, hedged: 0 }
  readonly #workerData: WorkerData
  /** Exists on Linux when the background threads run below RESERVE_NICE. */
  readonly #hasReserve: boolean
  #reserve: Slot | null = null
  /** When a background thread last started or finished a job. */
  #progressAt = 0
  /** Set when the background threads went `starvedAfterMs` without progress; cleared by a prompt job. */
  #starving = false
  #starvationTimer: NodeJS.Timeout | null = null
  /** Set while a background job is running: fires when the oldest would count as starved. */
  #hedgeTimer: NodeJS.Timeout | null = null
  #closed = false

  /**
   * `size` background threads at most: by default the cores this process may use, shared out
   * among the processes of `craft serve --workers N` (TROWEL_WORKERS), so a machine never runs
   * more background threads than it has cores (each holds about 9 MB, and 19 MiB while it hashes).
   */
  constructor(size = defaultPoolSize(), options: HashPoolOptions = {}) {
    this.size = size
    const linux = process.platform === 'linux'
    this.nice = linux ? (options.nice ?? hashNice(process.env.HASH_NICE)) : 0
    this.starvedAfterMs = options.starvedAfterMs ?? 1000
    this.idleMs = options.idleMs ?? 30_000
    this.fair = options.fair ?? process.env.HASH_FAIR !== '0'
    this.#clock = options.clock ?? REAL_CLOCK
    this.#queue = new FairQueue<Pending>({ fair: this.fair, clock: this.#clock, onDrop: (entry, reason) => this.#dropped(entry, reason) })
    this.#hasReserve = linux && this.nice > RESERVE_NICE
    this.#workerData = {
      argon2: requireModule.resolve('@node-rs/argon2'),
      bcrypt: requireModule.resolve('@node-rs/bcrypt'),
      nice: this.nice,
    }
  }

  /** Jobs waiting for a thread, all clients together. */
  get queueLength(): number {
    return this.#queue.length
  }

  /** Threads alive now, the reserve included. */
  get threads(): number {
    return this.#slots.length + (this.#reserve ? 1 : 0)
  }

  /** Counters since the pool was made (a copy). */
  get stats(): HashPoolStats {
    return { ...this.#stats }
  }

  /**
   * Runs `job` on a pool thread; resolves with its result. Rejects with `ServerBusyError` when it
   * cannot start within `options.maxWaitMs`, `HashAbortedError` when `options.signal` aborts,
   * `HashJobError` when the job fails in its thread, and a plain `Error` when the pool is closed or
   * a thread died or could not start.
   */
  run<T>(job: HashJob, options: RunOptions = {}): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('The hashing pool is closed.'))
    const { signal } = options
    if (signal?.aborted) {
      this.#stats.aborted++
      return Promise.reject(new HashAbortedError(signal.reason))
    }
    const maxWaitMs = options.maxWaitMs ?? Infinity
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = {
        job,
        running: 0,
        settled: false,
        hedged: false,
        resolve: resolve as (value: unknown) => void,
        reject,
        signal,
        maxWaitMs,
        onWait: options.onWait,
      }
      this.#queue.push(pending, { client: options.client, maxWaitMs, signal })
      this.#dispatch()
    })
  }

  /** Stops every thread: jobs in flight and waiting fail, later `run()` calls too. For tests and shutdown. */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#starvationTimer) clearTimeout(this.#starvationTimer)
    this.#starvationTimer = null
    if (this.#hedgeTimer) clearTimeout(this.#hedgeTimer)
    this.#hedgeTimer = null
    for (const pending of this.#queue.clear()) pending.reject(new Error('The hashing pool is closed.'))
    const slots = this.#slots.splice(0)
    if (this.#reserve) slots.push(this.#reserve)
    this.#reserve = null
    for (const slot of slots) if (slot.idleTimer) clearTimeout(slot.idleTimer)
    await Promise.all(slots.map((slot) => slot.worker.terminate()))
  }

  /** Hands waiting jobs to free background threads, starting threads up to `size`. Never throws. */
  #dispatch(): void {
    while (!this.#closed && this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.busy === null)
      if (!slot && this.#slots.length < this.size) {
        try {
          slot = this.#spawn(this.#workerData)
          this.#slots.push(slot)
        } catch (error) {
          // The system refused a thread (thread limit, memory). With none alive nothing would
          // ever take the job: it fails now, as a hash error (a login that cannot be checked).
          if (this.#slots.length === 0) {
            this.#queue.take()?.item.reject(error instanceof Error ? error : new Error(String(error)))
            continue
          }
        }
      }
      if (!slot) break
      const next = this.#queue.take()
      if (!next) break
      this.#progressAt = performance.now()
      this.#start(slot, next)
    }
    this.#helpIfStarved()
    this.#hedgeIfStarved()
  }

  /** A job left the queue without running: its deadline came, or its client went away. */
  #dropped(entry: QueueEntry<Pending>, reason: 'expired' | 'aborted'): void {
    const pending = entry.item
    if (reason === 'aborted') {
      this.#stats.aborted++
      pending.reject(new HashAbortedError(pending.signal?.reason))
    } else {
      this.#stats.expired++
      const cause = new Error(`Password check not run: no hashing thread was free within ${pending.maxWaitMs} ms.`)
      pending.reject(new ServerBusyError(Math.min(60, pending.maxWaitMs / 1000), undefined, { cause }))
    }
  }

  /**
   * Jobs are waiting and every background thread is busy. If none has started or finished a job
   * for `starvedAfterMs`, the CPU is going to other work: the pool is starving, and the reserve
   * takes the work one job after another until a background thread finishes one promptly (in
   * under half that time) or the pool has nothing left to do; if not yet, this checks again then.
   * The jobs the starved threads hold come first, oldest first: they were taken before anything
   * still waiting, and under a flood that never empties the queue they would otherwise answer
   * only after the flood's checks, or when the CPU frees up.
   */
  #helpIfStarved(): void {
    if (!this.#hasReserve || this.#closed || this.#queue.length === 0 || this.#reserve?.busy) return
    const wait = this.#progressAt + this.starvedAfterMs - performance.now()
    if (!this.#starving && wait > 0) {
      this.#starvationTimer ??= setTimeout(() => {
        this.#starvationTimer = null
        this.#helpIfStarved()
      }, Math.ceil(wait)).unref()
      return
    }
    this.#starving = true
    if (!this.#reserve) {
      try {
        this.#reserve = this.#spawn({ ...this.#workerData, nice: RESERVE_NICE })
      } catch {
        return // no thread to spare: the background threads carry on alone
      }
    }
    const held = this.#oldestRunning()?.busy
    if (held) return this.#hedge(this.#reserve, held)
    const next = this.#queue.take()
    if (next) this.#start(this.#reserve, next)
  }

  /** The background thread whose job, not yet run again on the reserve nor abandoned by its client, started first. */
  #oldestRunning(): Slot | undefined {
    let oldest: Slot | undefined
    for (const slot of this.#slots) {
      const job = slot.busy
      if (job && !job.hedged && !job.settled && !job.signal?.aborted && (!oldest || slot.startedAt < oldest.startedAt)) oldest = slot
    }
    return oldest
  }

  /** Runs a background thread's job again on the reserve; the first copy to finish answers. */
  #hedge(reserve: Slot, pending: Pending): void {
    pending.hedged = true
    this.#stats.hedged++
    this.#run(reserve, pending)
  }

  /**
   * No job waits and the reserve is free, but a background thread's job has run for
   * `starvedAfterMs`: the CPU is going to other work (other processes, at a better priority). The
   * reserve runs that job again; the first copy to finish answers. If none has run that long yet,
   * this checks again when the oldest would have.
   */
  #hedgeIfStarved(): void {
    if (!this.#hasReserve || this.#closed || this.#queue.length > 0 || this.#reserve?.busy || this.#hedgeTimer) return
    const oldest = this.#oldestRunning()
    if (!oldest) return
    const wait = oldest.startedAt + this.starvedAfterMs - performance.now()
    if (wait > 0) {
      this.#hedgeTimer = setTimeout(() => {
        this.#hedgeTimer = null
        this.#hedgeIfStarved()
      }, Math.ceil(wait)).unref()
      return
    }
    if (!this.#reserve) {
      try {
        this.#reserve = this.#spawn({ ...this.#workerData, nice: RESERVE_NICE })
      } catch {
        return // no thread to spare: the background thread carries on alone
      }
    }
    this.#hedge(this.#reserve, oldest.busy!)
  }

  #start(slot: Slot, entry: QueueEntry<Pending>): void {
    const pending = entry.item
    this.#stats.started++
    this.#run(slot, pending)
    if (pending.onWait) {
      try {
        pending.onWait(Math.max(0, this.#clock.now() - entry.enqueuedAt))
      } catch {
        // A metrics callback must not break hashing.
      }
    }
  }

  #run(slot: Slot, pending: Pending): void {
    pending.running++
    slot.busy = pending
    if (slot.idleTimer) clearTimeout(slot.idleTimer)
    slot.idleTimer = null
    slot.startedAt = performance.now()
    slot.worker.ref()
    slot.worker.postMessage(pending.job)
  }

  #spawn(workerData: WorkerData): Slot {
    // execArgv: [] keeps a TypeScript loader (tsx in development) out of the threads.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData, execArgv: [] })
    const slot: Slot = { worker, busy: null, idleTimer: null, startedAt: 0 }
    const isReserve = () => slot === this.#reserve
    worker.on('message', (message: { ok: boolean; result?: unknown; message?: string }) => {
      const done = slot.busy
      slot.busy = null
      worker.unref()
      if (!isReserve()) {
        this.#progressAt = performance.now()
        if (this.#progressAt - slot.startedAt < this.starvedAfterMs / 2) this.#starving = false
      }
      if (done) {
        done.running--
        const first = !done.settled
        done.settled = true
        if (first) this.#stats.finished++
        // A copy that finished second (see #hedgeIfStarved and #helpIfStarved) has nobody left to
        // answer. The client left while its job ran: the result goes nowhere.
        if (first) {
          if (done.signal?.aborted) done.reject(new HashAbortedError(done.signal.reason))
          else if (message.ok) done.resolve(message.result)
          else done.reject(new HashJobError(message.message ?? 'The hashing job failed.'))
        }
      }
      this.#dispatch()
      if (this.#queue.length === 0 && !this.#slots.some((s) => s.busy)) this.#starving = false
      if (slot.busy === null && !this.#closed) slot.idleTimer = setTimeout(() => this.#retire(slot), this.idleMs).unref()
    })
    const fail = (error: Error) => {
      if (slot.idleTimer) clearTimeout(slot.idleTimer)
      slot.idleTimer = null
      if (isReserve()) this.#reserve = null
      const index = this.#slots.indexOf(slot)
      if (index !== -1) this.#slots.splice(index, 1)
      const lost = slot.busy
      slot.busy = null
      if (lost) {
        lost.running--
        // A job whose other copy still runs is answered by that copy.
        if (!lost.settled && lost.running === 0) {
          lost.settled = true
          lost.reject(error)
        }
      }
      this.#dispatch()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`A hashing thread stopped (exit code ${code}).`)))
    worker.unref()
    return slot
  }

  /** Stops a thread that has had no job for `idleMs` (it is no longer one of the pool's). */
  #retire(slot: Slot): void {
    slot.idleTimer = null
    if (slot.busy !== null || this.#closed) return
    if (slot === this.#reserve) this.#reserve = null
    const index = this.#slots.indexOf(slot)
    if (index !== -1) this.#slots.splice(index, 1)
    void slot.worker.terminate()
  }
}

let shared: HashPool | undefined

/** The process-wide pool every `Hasher` uses. */
export function hashPool(): HashPool {
  return (shared ??= new HashPool())
}
