/**
 * @module auth/throttle/login-throttle
 * Failed-login throttling per lower(e-mail) + IP: one budget shared by `POST /login` and the
 * API's authRoute. After `maxAttempts` failures (5) within `decaySeconds` (60) every attempt,
 * even with the right password, is refused until the window that started with the first failure
 * ends.
 */
import type { ThrottleStore } from './throttle-store.js'

export interface LoginThrottleOptions {
  /** Failures allowed per window. Default 5. */
  maxAttempts?: number
  /** Window length in seconds, from the first failure. Default 60. */
  decaySeconds?: number
}

/**
 * @example
 * const key = throttle.key(email, ip)
 * const retryAfter = await throttle.tooManyAttempts(key)
 * if (retryAfter !== null) throw new TooManyRequestsError(retryAfter)
 * if (!ok) await throttle.hit(key); else await throttle.clear(key)
 */
export class LoginThrottle {
  readonly store: ThrottleStore
  readonly maxAttempts: number
  readonly decaySeconds: number

  constructor(store: ThrottleStore, options: LoginThrottleOptions = {}) {
    this.store = store
    this.maxAttempts = options.maxAttempts ?? 5
    this.decaySeconds = options.decaySeconds ?? 60
    if (!Number.isInteger(this.maxAttempts) || this.maxAttempts < 1) {
      throw new RangeError('LoginThrottle maxAttempts must be a positive integer.')
    }
    if (!Number.isFinite(this.decaySeconds) || this.decaySeconds <= 0) {
      throw new RangeError('LoginThrottle decaySeconds must be a positive number.')
    }
  }

  /** The throttle key of a login attempt: `lower(trim(email)) + '|' + ip`. */
  key(email: string, ip: string): string {
    return `${String(email).trim().toLowerCase()}|${ip}`
  }

  /** Seconds until `key` may try again, or `null` when it still has attempts left. */
  async tooManyAttempts(key: string): Promise<number | null> {
    const entry = await this.store.get(key)
    return entry !== null && entry.count >= this.maxAttempts ? entry.resetInSeconds : null
  }

  /** Records one failed attempt; returns the failures counted in the current window. */
  async hit(key: string): Promise<number> {
    return (await this.store.hit(key, this.decaySeconds)).count
  }

  /** Forgets the failures of `key` (after a successful login). */
  async clear(key: string): Promise<void> {
    await this.store.clear(key)
  }
}
