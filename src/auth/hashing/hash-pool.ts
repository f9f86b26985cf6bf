/**
 * @module auth/hashing/hash-pool
 * Where password hashing runs: worker threads that use the CPU the rest of the process leaves
 * idle, with a reserve thread so that a busy server cannot lock logins out.
 *
 * Hashing is meant to be slow (argon2id, about 12 ms of one core). On libuv's pool it ran at the
 * event loop's priority: a burst of logins took every core, and every other request (a JWT route,
 * a page) waited for CPU behind them. Now, on Linux:
 *
 * - **Background threads** (one per core the process may use, shared out among `serve --workers`
 *   processes) run at nice 19 (`HASH_NICE`, 0-19). The kernel runs them when the event loop has
 *   nothing to do and switches back to the event loop as soon as a request arrives, so logins in
 *   flight do not delay other requests: issue 7's rule, the JWT route's p99 while 20 logins hash
 *   within 3x of its idle p99, holds (`npm run test:soak`).
 * - **The reserve thread** runs at nice 5. At nice 19 alone, a process whose event loop keeps a
 *   core busy (a saturated API, or other programs on the machine) would let about one login a
 *   second through. When the background threads have finished nothing for `starvedAfterMs`
 *   (1 s) while jobs wait, the reserve takes the waiting jobs one after another until a
 *   background thread finishes one promptly (in under half that time) or the pool runs out of
 *   work; at nice 5 it gets about a quarter of a core the event loop keeps busy.
 *
 * Measured on 2 cores with the server pinned to one and the load on the other:
 *
 * | hashing at | JWT p99 beside 20 logins vs idle (`test:soak`) | saturated API: logins/s, API rate kept (`bench:logins`) |
 * |---|---:|---:|
 * | nice 0, the event loop's priority (`HASH_NICE=0`; libuv's pool in the last column) | 6.7x | 20/s, 51 % |
 * | nice 5 (the previous default) | 4.1-4.2x | 11/s, 77-82 % |
 * | nice 19 without a reserve | | 1/s, 91 % |
 * | nice 19 + the reserve at nice 5 (now) | 1.3-2.1x | 9-10/s, 64-73 % |
 *
 * The price is in the last column: while the API keeps the core saturated and logins flood it,
 * the two hashing threads cost the API a little more than one thread at nice 5 did.
 *
 * `setpriority` applies to the calling thread on Linux only; elsewhere it would lower the whole
 * process, so there every thread keeps the normal priority and there is no reserve.
 *
 * Jobs wait in one line, first come first served; a thread takes the next when it is free.
 * Threads start on the first job (an app that never hashes pays nothing), do not keep the process
 * alive when idle, and a thread that dies is replaced (its job fails, the next one runs).
 */
import { Worker } from 'node:worker_threads'
import { availableParallelism } from 'node:os'
import { createRequire } from 'node:module'

export type HashJob =
  | { op: 'argon2.hash'; password: string | Uint8Array; options: Record<string, unknown> }
  | { op: 'argon2.verify'; hash: string; password: string }
  | { op: 'bcrypt.verify'; hash: string; password: string }
  | { op: 'priority' }

interface Pending {
  job: HashJob
  resolve: (value: unknown) => void
  reject: (error: Error) => void
}

interface Slot {
  worker: Worker
  busy: Pending | null
  /** When the job in `busy` was handed over (performance.now()). */
  startedAt: number
}

const requireModule = createRequire(import.meta.url)

// CommonJS, run with `eval`: no file to locate from src/, dist/ or an app's compiled copy.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const os = require('node:os')
if (workerData.nice) { try { os.setPriority(workerData.nice) } catch {} }
const argon2 = require(workerData.argon2)
let bcrypt
parentPort.on('message', (job) => {
  try {
    let result
    if (job.op === 'argon2.hash') result = argon2.hashSync(typeof job.password === 'string' ? job.password : Buffer.from(job.password), job.options)
    else if (job.op === 'argon2.verify') result = argon2.verifySync(job.hash, job.password)
    else if (job.op === 'bcrypt.verify') result = (bcrypt ??= require(workerData.bcrypt)).verifySync(job.password, job.hash)
    else if (job.op === 'priority') result = os.getPriority()
    else throw new Error('unknown job ' + job.op)
    parentPort.postMessage({ ok: true, result })
  } catch (error) {
    parentPort.postMessage({ ok: false, message: error && error.message ? error.message : String(error) })
  }
})
`

/** The reserve thread's niceness: about a quarter of a core contended by the event loop (nice 0). */
export const RESERVE_NICE = 5

export interface HashPoolOptions {
  /** Background threads' niceness on Linux; default `HASH_NICE`, else 19. */
  nice?: number
  /** How long the background threads may finish nothing while jobs wait before the reserve helps (ms, default 1000). */
  starvedAfterMs?: number
}

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
  readonly #slots: Slot[] = []
  readonly #queue: Pending[] = []
  readonly #workerData: WorkerData
  /** Exists on Linux when the background threads run below RESERVE_NICE. */
  readonly #hasReserve: boolean
  #reserve: Slot | null = null
  /** When a background thread last started or finished a job. */
  #progressAt = 0
  /** Set when the background threads went `starvedAfterMs` without progress; cleared by a prompt job. */
  #starving = false
  #starvationTimer: NodeJS.Timeout | null = null
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
    this.#hasReserve = linux && this.nice > RESERVE_NICE
    this.#workerData = {
      argon2: requireModule.resolve('@node-rs/argon2'),
      bcrypt: requireModule.resolve('@node-rs/bcrypt'),
      nice: this.nice,
    }
  }

  /** Runs `job` on a pool thread; resolves with its result. */
  run<T>(job: HashJob): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('The hashing pool is closed.'))
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ job, resolve: resolve as (value: unknown) => void, reject })
      this.#dispatch()
    })
  }

  /** Stops every thread: jobs in flight and waiting fail, later `run()` calls too. For tests and shutdown. */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#starvationTimer) clearTimeout(this.#starvationTimer)
    this.#starvationTimer = null
    for (const pending of this.#queue.splice(0)) pending.reject(new Error('The hashing pool is closed.'))
    const slots = this.#slots.splice(0)
    if (this.#reserve) slots.push(this.#reserve)
    this.#reserve = null
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
            this.#queue.shift()!.reject(error instanceof Error ? error : new Error(String(error)))
            continue
          }
        }
      }
      if (!slot) break
      this.#progressAt = performance.now()
      this.#start(slot, this.#queue.shift()!)
    }
    this.#helpIfStarved()
  }

  /**
   * Jobs are waiting and every background thread is busy. If none has started or finished a job
   * for `starvedAfterMs`, the CPU is going to other work: the pool is starving, and the reserve
   * takes the waiting jobs one after another until a background thread finishes one promptly (in
   * under half that time) or the pool has nothing left to do. If not yet, this checks again when
   * that time is up.
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
    this.#start(this.#reserve, this.#queue.shift()!)
  }

  #start(slot: Slot, job: Pending): void {
    slot.busy = job
    slot.startedAt = performance.now()
    slot.worker.ref()
    slot.worker.postMessage(job.job)
  }

  #spawn(workerData: WorkerData): Slot {
    // execArgv: [] keeps a TypeScript loader (tsx in development) out of the threads.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData, execArgv: [] })
    const slot: Slot = { worker, busy: null, startedAt: 0 }
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
        if (message.ok) done.resolve(message.result)
        else done.reject(new Error(message.message))
      }
      this.#dispatch()
      if (this.#queue.length === 0 && !this.#slots.some((s) => s.busy)) this.#starving = false
    })
    const fail = (error: Error) => {
      if (isReserve()) this.#reserve = null
      const index = this.#slots.indexOf(slot)
      if (index !== -1) this.#slots.splice(index, 1)
      slot.busy?.reject(error)
      slot.busy = null
      this.#dispatch()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`A hashing thread stopped (exit code ${code}).`)))
    worker.unref()
    return slot
  }
}

function defaultPoolSize(): number {
  const processes = Number(process.env.TROWEL_WORKERS)
  const share = Number.isInteger(processes) && processes > 1 ? processes : 1
  return Math.max(1, Math.ceil(availableParallelism() / share))
}

/** The niceness background hashing threads run at: `HASH_NICE` (0-19), else 19. */
export function hashNice(value: string | undefined): number {
  const n = Number(value)
  return value !== undefined && value.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= 19 ? n : 19
}

let shared: HashPool | undefined

/** The process-wide pool every `Hasher` uses. */
export function hashPool(): HashPool {
  return (shared ??= new HashPool())
}
