/**
 * @module auth/hashing/hash-pool
 * Where password hashing runs: a few worker threads, one per available core, at a lower CPU
 * priority than the event loop on Linux (nice 5; `HASH_NICE` 0-19 changes it).
 *
 * Hashing is meant to be slow (argon2id, about 12 ms of one core). On libuv's pool it ran at the
 * event loop's priority: a burst of logins took every core, and every other request (a JWT route,
 * a page) waited for CPU behind them. Measured with the server on one core, 50 connections on
 * `GET /api/me` and 8 on `POST /api/auth` (`npm run bench:logins`):
 *
 * | hashing at | logins/s | JWT route, share of its rate alone |
 * |---|---:|---:|
 * | nice 0 (libuv's pool, before) | 20 | 51 % |
 * | nice 5 (the default) | 13 | 84 % |
 * | nice 10 | 6 | 89 % |
 * | nice 19 | 1 | 91 % |
 *
 * Nice 5 keeps the API answering through a login flood and still lets people log in while the
 * API saturates the core; 19 would let API traffic lock logins out. Linux applies `setpriority`
 * to the calling thread; elsewhere it would lower the whole process, so there threads keep the
 * normal priority.
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

export class HashPool {
  readonly size: number
  readonly #slots: Slot[] = []
  readonly #queue: Pending[] = []
  readonly #workerData: { argon2: string; bcrypt: string; nice: number }

  #closed = false

  /**
   * `size` threads at most: by default the cores this process may use, shared out among the
   * processes of `craft serve --workers N` (TROWEL_WORKERS), so a machine never runs more
   * hashing threads than it has cores (each holds about 9 MB, and 19 MiB while it hashes).
   */
  constructor(size = defaultPoolSize()) {
    this.size = size
    this.#workerData = {
      argon2: requireModule.resolve('@node-rs/argon2'),
      bcrypt: requireModule.resolve('@node-rs/bcrypt'),
      nice: process.platform === 'linux' ? hashNice(process.env.HASH_NICE) : 0,
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
    for (const pending of this.#queue.splice(0)) pending.reject(new Error('The hashing pool is closed.'))
    const slots = this.#slots.splice(0)
    await Promise.all(slots.map((slot) => slot.worker.terminate()))
  }

  /** Hands waiting jobs to free threads, starting threads up to `size`. Never throws. */
  #dispatch(): void {
    while (!this.#closed && this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.busy === null)
      if (!slot && this.#slots.length < this.size) {
        try {
          slot = this.#spawn()
        } catch (error) {
          // The system refused a thread (thread limit, memory). With none alive nothing would
          // ever take the job: it fails now, as a hash error (a login that cannot be checked).
          if (this.#slots.length === 0) {
            this.#queue.shift()!.reject(error instanceof Error ? error : new Error(String(error)))
            continue
          }
        }
      }
      if (!slot) return
      const next = this.#queue.shift()!
      slot.busy = next
      slot.worker.ref()
      slot.worker.postMessage(next.job)
    }
  }

  #spawn(): Slot {
    // execArgv: [] keeps a TypeScript loader (tsx in development) out of the threads.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.#workerData, execArgv: [] })
    const slot: Slot = { worker, busy: null }
    worker.on('message', (message: { ok: boolean; result?: unknown; message?: string }) => {
      const done = slot.busy
      slot.busy = null
      worker.unref()
      if (done) {
        if (message.ok) done.resolve(message.result)
        else done.reject(new Error(message.message))
      }
      this.#dispatch()
    })
    const fail = (error: Error) => {
      const index = this.#slots.indexOf(slot)
      if (index !== -1) this.#slots.splice(index, 1)
      slot.busy?.reject(error)
      slot.busy = null
      this.#dispatch()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`A hashing thread stopped (exit code ${code}).`)))
    worker.unref()
    this.#slots.push(slot)
    return slot
  }
}

function defaultPoolSize(): number {
  const processes = Number(process.env.TROWEL_WORKERS)
  const share = Number.isInteger(processes) && processes > 1 ? processes : 1
  return Math.max(1, Math.ceil(availableParallelism() / share))
}

/** The niceness hashing threads run at: `HASH_NICE` (0-19), else 5. */
export function hashNice(value: string | undefined): number {
  const n = Number(value)
  return value !== undefined && value.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= 19 ? n : 5
}

let shared: HashPool | undefined

/** The process-wide pool every `Hasher` uses. */
export function hashPool(): HashPool {
  return (shared ??= new HashPool())
}
