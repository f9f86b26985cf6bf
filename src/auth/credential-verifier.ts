/**
 * @module auth/credential-verifier
 * Checks an identifier and password the same way for every entry point (the web login form, the
 * API's token route, `auth.attempt`):
 * - throttled per lower(identifier)+IP with one shared budget (5 failures a minute by default):
 *   while throttled even a correct password gets `TooManyRequestsError`;
 * - an unknown identifier costs the same work as a wrong password (one hasher call either way);
 * - non-string or over-long input fails at once, without hashing;
 * - a bcrypt hash (or a weaker argon2 one) is rehashed to argon2id after a successful check.
 */
import type { Hasher } from './hashing/index.js'
import type { LoginThrottle } from './throttle/index.js'
import type { Logger } from '../support/logger.js'
import { TooManyRequestsError } from '../http/errors.js'
import { isPasswordTooLong } from './hashing/password-length.js'

export interface AuthenticatableModel {
  findForAuth(value: unknown): Promise<any | null>
  passwordColumn: string
}


export class CredentialVerifier {
  constructor(
    readonly hasher: Hasher,
    readonly throttle: LoginThrottle,
    readonly log: Logger,
  ) {}

  /** Seconds until the identifier+IP may try again, or null. */
  async throttled(identifier: unknown, ip: string): Promise<number | null> {
    return this.throttle.tooManyAttempts(this.throttle.key(typeof identifier === 'string' ? identifier : '', ip))
  }

  async verify(model: AuthenticatableModel, identifier: unknown, password: unknown, ip: string, channel: string): Promise<any | null> {
    const key = this.throttle.key(typeof identifier === 'string' ? identifier : '', ip)
    const retryAfter = await this.throttle.tooManyAttempts(key)
    if (retryAfter !== null) {
      this.log.warn('auth.throttled', { channel, ip, retry_after: retryAfter })
      throw new TooManyRequestsError(retryAfter)
    }
    const valid =
      typeof identifier === 'string' && identifier.trim() !== '' && identifier.length <= 320 &&
      typeof password === 'string' && password !== '' && !isPasswordTooLong(password)
    let user: any | null = null
    let ok = false
    if (valid) {
      user = await model.findForAuth(identifier)
      const hash = user ? user.getAuthPassword?.() ?? user[model.passwordColumn] : null
      ok = user && typeof hash === 'string' ? await this.hasher.verify(hash, password) : await this.hasher.dummyVerify(password)
    }
    if (!ok) {
      await this.throttle.hit(key)
      // The account's id when the identifier names one (a wrong password), else null.
      this.log.info('auth.login_failed', { channel, ip, user_id: user?.getKey?.() ?? null })
      return null
    }
    await this.throttle.clear(key)
    const hash = user.getAuthPassword?.() ?? user[model.passwordColumn]
    if (this.hasher.needsRehash(hash)) {
      try {
        user.forceFill({ [model.passwordColumn]: await this.hasher.hash(password as string) })
        await user.save()
      } catch (error) {
        this.log.warn('auth.rehash_failed', { user_id: user.getKey?.(), error })
      }
    }
    return user
  }
}
