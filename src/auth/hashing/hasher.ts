/**
 * @module auth/hashing/hasher
 * Password hashing: argon2id with the OWASP parameters (19 MiB, 2 passes, 1 lane) computed off
 * the event loop by @node-rs/argon2 on low-priority threads (see hash-pool), plus verification of bcrypt hashes imported from Masonite or
 * Laravel (`$2a$`, `$2b$`, `$2y$`), which `needsRehash` then flags for an upgrade at next login.
 */
import { randomBytes } from 'node:crypto'
import * as argon2 from '@node-rs/argon2'
import { DUMMY_ARGON2ID_HASH } from './dummy-hash.js'
import { PasswordTooLongError } from './errors.js'
import { hashPool } from './hash-pool.js'
import { MAX_PASSWORD_LENGTH, isPasswordTooLong } from './password-length.js'

/** argon2 cost parameters. */
export interface HasherOptions {
  /** Memory in KiB. Default 19456 (19 MiB). */
  memoryCost?: number
  /** Passes over memory. Default 2. */
  timeCost?: number
  /** Lanes. Default 1. */
  parallelism?: number
}

/** The OWASP Password Storage Cheat Sheet's argon2id minimum. */
export const ARGON2ID_DEFAULTS: Required<HasherOptions> = Object.freeze({ memoryCost: 19456, timeCost: 2, parallelism: 1 })

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
 * const hasher = new Hasher()
 * const stored = await hasher.hash('correct horse battery staple')
 * const user = await findUser(email)
 * const ok = user ? await hasher.verify(user.password, password) : await hasher.dummyVerify(password)
 */
export class Hasher {
  readonly options: Readonly<Required<HasherOptions>>
  #verifications = 0
  #dummyHash: Promise<string> | undefined

  constructor(options: HasherOptions = {}) {
    this.options = Object.freeze({ ...ARGON2ID_DEFAULTS, ...options })
  }

  /** Number of `verify` and `dummyVerify` calls made on this instance. */
  get verifications(): number {
    return this.#verifications
  }

  /** Returns the argon2id PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) of `password`. */
  async hash(password: string): Promise<string> {
    if (typeof password !== 'string') throw new TypeError('The password to hash must be a string.')
    if (isPasswordTooLong(password)) throw new PasswordTooLongError(MAX_PASSWORD_LENGTH)
    return hashPool().run<string>({ op: 'argon2.hash', password, options: { ...this.options, algorithm: ARGON2ID, version: VERSION_0x13 } })
  }

  /**
   * `true` when `password` matches `hash` (argon2 PHC string or bcrypt `$2a$/$2b$/$2y$`).
   * Never throws: a malformed or unknown hash gives `false` after the same work as a dummy check.
   */
  async verify(hash: string, password: string): Promise<boolean> {
    this.#verifications++
    if (typeof password !== 'string' || isPasswordTooLong(password)) return false
    try {
      if (typeof hash === 'string' && hash.startsWith('$argon2')) {
        return await hashPool().run<boolean>({ op: 'argon2.verify', hash, password })
      }
      if (typeof hash === 'string' && BCRYPT_HASH.test(hash)) {
        return await hashPool().run<boolean>({ op: 'bcrypt.verify', hash, password })
      }
    } catch {
      return false
    }
    await this.#dummyWork(password)
    return false
  }

  /**
   * Does the work of a real `verify` against a fixed hash and returns `false`: call it when no
   * user has the given e-mail, so that case costs the same as a wrong password.
   */
  async dummyVerify(password: string): Promise<false> {
    this.#verifications++
    if (typeof password !== 'string' || isPasswordTooLong(password)) return false
    await this.#dummyWork(password)
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

  async #dummyWork(password: string): Promise<void> {
    const isDefault =
      this.options.memoryCost === ARGON2ID_DEFAULTS.memoryCost &&
      this.options.timeCost === ARGON2ID_DEFAULTS.timeCost &&
      this.options.parallelism === ARGON2ID_DEFAULTS.parallelism
    const dummy = isDefault
      ? DUMMY_ARGON2ID_HASH
      : await (this.#dummyHash ??= hashPool()
          .run<string>({ op: 'argon2.hash', password: randomBytes(32), options: { ...this.options, algorithm: ARGON2ID, version: VERSION_0x13 } })
          .catch((error: unknown) => {
            this.#dummyHash = undefined // try again next time rather than keep the failure
            throw error
          }))
    try {
      await hashPool().run<boolean>({ op: 'argon2.verify', hash: dummy, password })
    } catch {
      // The outcome is irrelevant; only the work counts.
    }
  }
}
