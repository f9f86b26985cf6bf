/**
 * @module auth/hashing/hasher
 * Password hashing: argon2id with the OWASP parameters (19 MiB, 2 passes, 1 lane) computed off
 * the event loop by @node-rs/argon2 on low-priority threads (see hash-pool), plus verification of bcrypt hashes imported from Masonite or
 * Laravel (`$2a$`, `$2b$`, `$2y$`), which `needsRehash` then flags for an upgrade at next login.
 *
 * Checks are fair and bounded (SPEC §9 item 5): each waits in its client's line, served
 * round-robin with the other clients' (see fair-queue); one that would wait longer than
 * `maxWaitMs` (`GUARDS.hashing.max_wait`, default 2000) is not run and rejects with
 * `ServerBusyError` (503 `E_SERVER_BUSY`); one whose client went away (`signal`) is not run and
 * rejects with `HashAbortedError` (`name` `'AbortError'`). A hashing failure (a thread that cannot
 * start, a broken pool) also rejects with `ServerBusyError`, its reason as the `cause`: never
 * `false`, which would read as a wrong password.
 */
import { randomBytes } from 'node:crypto'
import * as argon2 from '@node-rs/argon2'
import { DUMMY_ARGON2ID_HASH } from './dummy-hash.js'
import { PasswordTooLongError } from './errors.js'
import { HashAbortedError, HashJobError, hashPool, type HashJob, type HashPool } from './hash-pool.js'
import { clientKey } from '../throttle/client-key.js'
import { ServerBusyError } from '../../http/errors.js'
import { MAX_PASSWORD_LENGTH, isPasswordTooLong } from './password-length.js'

/** argon2 cost parameters. */
export interface Argon2Cost {
  /** Memory in KiB. Default 19456 (19 MiB). */
  memoryCost?: number
  /** Passes over memory. Default 2. */
  timeCost?: number
  /** Lanes. Default 1. */
  parallelism?: number
}

/** argon2 cost parameters, and how checks wait for a hashing thread. */
export interface HasherOptions extends Argon2Cost {
  /** How long a check (`verify`, `dummyVerify`) may wait for a thread (ms); default 2000. */
  maxWaitMs?: number
  /** Told how long each job of this hasher waited for a thread (ms), when a thread takes it. */
  onWait?: (ms: number) => void
  /** The pool to run on; default the process-wide one. For tests. */
  pool?: HashPool
}

/** How one check waits. */
export interface CheckOptions {
  /** The client's IP address: checks wait in one line per client (an IPv6 client per /64). */
  client?: string
  /** Abort it when the client disconnects: a check not yet started is never run. */
  signal?: AbortSignal
  /** Overrides the hasher's `maxWaitMs` for this check. */
  maxWaitMs?: number
}

/** `GUARDS.hashing.max_wait`'s default: how long a check may wait for a thread (ms). */
export const DEFAULT_MAX_WAIT_MS = 2000

/** The OWASP Password Storage Cheat Sheet's argon2id minimum. */
export const ARGON2ID_DEFAULTS: Readonly<Required<Argon2Cost>> = Object.freeze({ memoryCost: 19456, timeCost: 2, parallelism: 1 })

// `Algorithm` and `Version` are const enums in the typings; the values are spelled out so the
// module also works when compiled file by file (tsx, esbuild).
const ARGON2ID = 2 as argon2.Algorithm
const VERSION_0x13 = 1 as argon2.Version
const BCRYPT_HASH = /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/

/**
 * Hashes and verifies passwords. One instance is shared by the app; `verifications` counts every
 * `verify` and `dummyVerify` call so tests can assert that a login does the same amount of
 * hashing work whether or not the account exists.
 *
 * Passwords longer than 1024 characters are never hashed: `hash` throws `PasswordTooLongError`,
 * and `verify` / `dummyVerify` return `false` at once (both alike, so the length reveals nothing
 * about the account).
 *
 * @example
 * const hasher = new Hasher({ maxWaitMs: 2000 })
 * const stored = await hasher.hash('correct horse battery staple')
 * const user = await findUser(email)
 * const check = { client: ctx.request.ip(), signal }
 * const ok = user ? await hasher.verify(user.password, password, check) : await hasher.dummyVerify(password, check)
 */
export class Hasher {
  readonly options: Readonly<Required<Argon2Cost>>
  /** How long a check may wait for a thread (ms) unless it says otherwise (`GUARDS.hashing.max_wait`). */
  maxWaitMs: number
  /** Told how long each job of this hasher waited for a thread (ms); for metrics. */
  onWait: ((ms: number) => void) | undefined
  readonly #pool: HashPool | undefined
  #verifications = 0
  #dummyHash: Promise<string> | undefined

  constructor(options: HasherOptions = {}) {
    const { maxWaitMs, onWait, pool, ...cost } = options
    this.options = Object.freeze({ ...ARGON2ID_DEFAULTS, ...cost })
    this.maxWaitMs = maxWaitMs ?? DEFAULT_MAX_WAIT_MS
    this.onWait = onWait
    this.#pool = pool
  }

  /** Number of `verify` and `dummyVerify` calls made on this instance. */
  get verifications(): number {
    return this.#verifications
  }

  /** Hashing jobs waiting for a thread, all clients (and every hasher of the pool) together. */
  get queueLength(): number {
    return this.pool.queueLength
  }

  /** The pool this hasher runs on. */
  get pool(): HashPool {
    return this.#pool ?? hashPool()
  }

  /**
   * Returns the argon2id PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) of `password`.
   * Registration and rehashing wait for a thread as long as it takes unless `options.maxWaitMs`
   * is given; `options.client` queues the job in that client's line.
   */
  async hash(password: string, options: CheckOptions = {}): Promise<string> {
    if (typeof password !== 'string') throw new TypeError('The password to hash must be a string.')
    if (isPasswordTooLong(password)) throw new PasswordTooLongError(MAX_PASSWORD_LENGTH)
    const job: HashJob = { op: 'argon2.hash', password, options: { ...this.options, algorithm: ARGON2ID, version: VERSION_0x13 } }
    return this.#run<string>(job, { ...options, maxWaitMs: options.maxWaitMs ?? Infinity })
  }

  /**
   * `true` when `password` matches `hash` (argon2 PHC string or bcrypt `$2a$/$2b$/$2y$`).
   * A malformed or unknown hash gives `false` (an unknown one after the same work as a dummy
   * check). Rejects with `ServerBusyError` when the check would wait longer than `maxWaitMs` or
   * hashing failed, and with `HashAbortedError` when `options.signal` aborted: never `false` then.
   */
  async verify(hash: string, password: string, options: CheckOptions = {}): Promise<boolean> {
    this.#verifications++
    if (typeof password !== 'string' || isPasswordTooLong(password)) return false
    try {
      if (typeof hash === 'string' && hash.startsWith('$argon2')) {
        return await this.#run<boolean>({ op: 'argon2.verify', hash, password }, options)
      }
      if (typeof hash === 'string' && BCRYPT_HASH.test(hash)) {
        return await this.#run<boolean>({ op: 'bcrypt.verify', hash, password }, options)
      }
    } catch (error) {
      if (error instanceof HashJobError) return false // the stored hash could not be read
      throw error
    }
    await this.#dummyWork(password, options)
    return false
  }

  /**
   * Does the work of a real `verify` against a fixed hash and returns `false`: call it when no
   * user has the given e-mail, so that case costs the same as a wrong password. Waits, and
   * rejects, as `verify` does.
   */
  async dummyVerify(password: string, options: CheckOptions = {}): Promise<false> {
    this.#verifications++
    if (typeof password !== 'string' || isPasswordTooLong(password)) return false
    await this.#dummyWork(password, options)
    return false
  }

  /**
   * `true` when `hash` should be replaced by a fresh `hash()` after the next successful login:
   * bcrypt, argon2i/argon2d, an older argon2 version, or less memory, fewer passes, a shorter
   * salt or output than this hasher uses. Unrecognised strings also give `true`.
   */
  needsRehash(hash: string): boolean {
    if (typeof hash !== 'string' || !hash.startsWith('$argon2id$')) return true
    try {
      const parsed = argon2.parseOptions(hash)
      return (
        parsed.algorithm !== ARGON2ID ||
        parsed.version !== VERSION_0x13 ||
        parsed.memoryCost < this.options.memoryCost ||
        parsed.timeCost < this.options.timeCost ||
        parsed.outputLen < 32 ||
        parsed.saltLen < 16
      )
    } catch {
      return true
    }
  }

  async #dummyWork(password: string, options: CheckOptions): Promise<void> {
    const isDefault =
      this.options.memoryCost === ARGON2ID_DEFAULTS.memoryCost &&
      this.options.timeCost === ARGON2ID_DEFAULTS.timeCost &&
      this.options.parallelism === ARGON2ID_DEFAULTS.parallelism
    // The custom-cost dummy hash is made once, shared by every check: no client, no signal (one
    // client leaving must not fail the others'), the hasher's own limit.
    const dummy = isDefault
      ? DUMMY_ARGON2ID_HASH
      : await (this.#dummyHash ??= this.#run<string>({ op: 'argon2.hash', password: randomBytes(32), options: { ...this.options, algorithm: ARGON2ID, version: VERSION_0x13 } }, {})
          .catch((error: unknown) => {
            this.#dummyHash = undefined // try again next time rather than keep the failure
            throw error
          }))
    try {
      await this.#run<boolean>({ op: 'argon2.verify', hash: dummy, password }, options)
    } catch (error) {
      // The outcome is irrelevant, only the work counts; but a check that was not run is not "false".
      if (!(error instanceof HashJobError)) throw error
    }
  }

  /**
   * Runs `job` on the pool in the client's line, within `maxWaitMs` (the hasher's unless given).
   * Rejects with `ServerBusyError` (waited too long, or hashing failed: the pool's error as the
   * `cause`), `HashAbortedError` (the client left) or `HashJobError` (the job failed in its thread).
   */
  async #run<T>(job: HashJob, options: CheckOptions): Promise<T> {
    const pool = this.pool
    try {
      return await pool.run<T>(job, {
        client: typeof options.client === 'string' && options.client !== '' ? clientKey(options.client) : undefined,
        signal: options.signal,
        maxWaitMs: options.maxWaitMs ?? this.maxWaitMs,
        onWait: this.onWait,
      })
    } catch (error) {
      if (error instanceof ServerBusyError || error instanceof HashAbortedError || error instanceof HashJobError) throw error
      throw new ServerBusyError(1, undefined, { cause: error })
    }
  }
}
