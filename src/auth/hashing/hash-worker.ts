/**
 * @module auth/hashing/hash-worker
 * What a hashing thread of the pool (hash-pool) runs: its program, the jobs it takes, and the
 * errors a job can end with.
 */

export type HashJob =
  | { op: 'argon2.hash'; password: string | Uint8Array; options: Record<string, unknown> }
  | { op: 'argon2.verify'; hash: string; password: string }
  | { op: 'bcrypt.verify'; hash: string; password: string }
  /**
   * The thread's niceness. `starveMs` (tests): a thread below the reserve's priority (nice above
   * 5) first blocks that long, as a thread other processes starve of CPU would.
   */
  | { op: 'priority'; starveMs?: number }

/**
 * The client went away: its job's `signal` aborted before the job ran (it was never run), or
 * while it ran (its result was thrown away). `name` is `'AbortError'`, as for fetch and Node's
 * own APIs; the signal's `reason` is the `cause`.
 */
export class HashAbortedError extends Error {
  readonly code = 'ABORT_ERR'
  constructor(cause?: unknown) {
    super('The client went away before its password check ran.', cause === undefined ? undefined : { cause })
    this.name = 'AbortError'
  }
}

/** The job itself failed in its thread (e.g. argon2 could not parse the hash); the pool is fine. */
export class HashJobError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'HashJobError'
  }
}

// CommonJS, run with `eval`: no file to locate from src/, dist/ or an app's compiled copy.
export const WORKER_SOURCE = `
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
    else if (job.op === 'priority') {
      result = os.getPriority()
      if (job.starveMs > 0 && result > 5) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, job.starveMs)
    }
    else throw new Error('unknown job ' + job.op)
    parentPort.postMessage({ ok: true, result })
  } catch (error) {
    parentPort.postMessage({ ok: false, message: error && error.message ? error.message : String(error) })
  }
})
`

