/**
 * @module auth/guards/base-guard
 * What every guard shares: this request's user and the answers `Guard` promises on top of the
 * guard's own `resolve()` (who sent the request), `login` and `logout`. Credentials always go
 * through the CredentialVerifier and its budgets; the outcome is emitted as an auth event
 * (`auth:throttled`, and `auth:account_locked` when an account's own budget has just run out).
 */
import type { HttpContext } from '../../http/context.js'
import type { Emitter } from '../../events/emitter.js'
import { TooManyRequestsError, UnauthorizedError, ValidationError } from '../../http/errors.js'
import { BudgetExceededError, MAX_IDENTIFIER_BYTES, MAX_PASSWORD_BYTES, type CredentialVerifier } from '../credential-verifier.js'
import type { AuthUser, CredentialUserProvider } from '../types.js'
import { eventBase } from '../events.js'
import { PasswordResetRequiredError } from '../errors.js'
import { isPasswordLocked } from '../accounts/password-lock.js'
import { SecondFactorRequiredError } from '../login/errors.js'
import { finishGuardLogin, PASSWORD_AMR } from '../login/flow.js'
import type { LoginAttempt, LoginChallenge } from '../login/types.js'
import type { Guard } from './guard.js'

export type { LoginChallenge }

export interface GuardDependencies<User extends AuthUser> {
  provider: CredentialUserProvider<User>
  verifier: CredentialVerifier
  events: Emitter
  /** The AuthManager's login challenges, run after a correct password and before the login. */
  challenge?: LoginChallenge
}

export abstract class BaseGuard<User extends AuthUser = AuthUser> implements Guard<User> {
  abstract readonly driverName: string
  #user: User | null = null
  #attempt: Promise<User> | undefined
  /** Set by a logout: the credentials the request came with no longer count. */
  #ended = false

  constructor(
    readonly name: string,
    protected readonly ctx: HttpContext,
    protected readonly deps: GuardDependencies<User>,
  ) {}

  /**
   * Finds the request's user from its credentials; throws (or rejects with) the guard's 401
   * error. Runs once. May answer without a promise when the user is at hand (`checkNow`).
   */
  protected abstract resolve(): User | Promise<User>
  abstract login(user: User): Promise<void>
  abstract logout(): Promise<void>

  /** The 401 error this guard throws when nobody is authenticated. */
  protected unauthenticated(): UnauthorizedError {
    return new UnauthorizedError()
  }

  get user(): User | null {
    return this.#user
  }

  get isAuthenticated(): boolean {
    return this.#user !== null
  }

  get authenticationAttempted(): boolean {
    return this.#attempt !== undefined
  }

  authenticate(): Promise<User> {
    if (this.#ended) return Promise.reject(this.unauthenticated())
    this.#attempt ??= this.#start()
    return this.#attempt
  }

  /** Runs `resolve()`; a user it answered at once is this request's user before this returns. */
  #start(): Promise<User> {
    let found: User | Promise<User>
    try {
      found = this.resolve()
    } catch (error) {
      return Promise.reject(error)
    }
    if (found instanceof Promise) return found.then((user) => (this.#user = user))
    this.#user = found
    return Promise.resolve(found)
  }

  /**
   * `check()`, without a promise when the answer is at hand: the user already known, or found by
   * a `resolve()` that answered synchronously (the web guard's joined read on SQLite). The same
   * answer and the same once-per-request resolution as `check()`.
   */
  checkNow(): boolean | Promise<boolean> {
    if (this.#user) return true
    if (!this.#ended && this.#attempt === undefined) {
      this.#attempt = this.#start()
      if (this.#user) return true
    }
    return this.check()
  }

  async check(): Promise<boolean> {
    if (this.#user) return true
    try {
      await this.authenticate()
      return true
    } catch (error) {
      if (error instanceof UnauthorizedError) return false
      throw error
    }
  }

  getUserOrFail(): User {
    if (!this.#user) throw this.unauthenticated()
    return this.#user
  }

  /**
   * A password login through the login flow (method `password`, amr `['pwd']`): the user, logged
   * in, or null. A user with a second factor is held back: `SecondFactorRequiredError` (401
   * `E_MFA_REQUIRED`; on the web the pending login waits in the session).
   */
  async attempt(identifier: unknown, password: unknown): Promise<User | null> {
    const user = await this.verifyCredentials(identifier, password)
    if (!user) return null
    await this.completeLogin({ user, method: 'password', amr: PASSWORD_AMR })
    return user
  }

  /**
   * Checks the credentials (budgets, fair hashing) without logging in: the user, or null after
   * `auth:login_failed`. Throws 429 (after `auth:throttled`), 422 for oversized input, and
   * `PasswordResetRequiredError` for a password locked by "This wasn't me".
   */
  async verifyCredentials(identifier: unknown, password: unknown): Promise<User | null> {
    const { verifier, provider, events } = this.deps
    const { request } = this.ctx
    let result
    try {
      result = await verifier.verify(provider, identifier, password, {
        ip: request.ip(),
        deviceFor: (accountId) => this.deviceFor(accountId),
        signal: (request as { signal?: AbortSignal }).signal,
      })
    } catch (error) {
      if (error instanceof TooManyRequestsError) {
        events.emit('auth:throttled', { ...eventBase(this.ctx, this.name, null), retryAfter: error.retryAfter })
        if (error instanceof BudgetExceededError && error.locksAccount) {
          events.emit('auth:account_locked', { ...eventBase(this.ctx, this.name, error.account!), retryAfter: error.retryAfter })
        }
      }
      // Anything else (503 E_UNAVAILABLE from an unreachable budget store, 503 E_SERVER_BUSY from
      // the hasher) goes up as it is: never a "wrong password".
      throw error
    }
    if (result.tooLong) throw this.tooLong(result.tooLong)
    if (!result.ok) {
      events.emit('auth:login_failed', eventBase(this.ctx, this.name, result.user))
      return null
    }
    // The owner used "This wasn't me": the password, right as it is, waits for the reset.
    if (isPasswordLocked(result.user)) {
      events.emit('auth:login_failed', eventBase(this.ctx, this.name, result.user))
      throw new PasswordResetRequiredError()
    }
    return result.user
  }

  /**
   * Logs `attempt.user` in through the login flow (see auth/login/flow): the second factor for the
   * methods that have one, the login, the session's state, `auth:login_succeeded` (not with
   * `event: false`). Throws `SecondFactorRequiredError` when the login waits for its second step.
   */
  async completeLogin(attempt: LoginAttempt, options: { event?: boolean } = {}): Promise<void> {
    const outcome = await finishGuardLogin(this.ctx, this, this.deps, attempt, options)
    if ('status' in outcome && outcome.status === 'challenge') throw new SecondFactorRequiredError()
  }

  /**
   * Whether the request comes from a browser that logged into `accountId` before (the web
   * guard's device cookie); undefined for guards without devices. Sent as `knownDevice` on
   * `auth:login_succeeded` (the "new device" security e-mail).
   */
  knownDevice(_accountId: unknown): boolean | undefined | Promise<boolean | undefined> {
    return undefined
  }

  /**
   * The device id of this request's device cookie when it names `accountId`, else null. Only the
   * web guard has devices; their attempts are counted on their own key, not the account's.
   */
  protected deviceFor(_accountId: unknown): string | null | Promise<string | null> {
    return null
  }

  /** Oversized input: 422 E_VALIDATION (a 302 back with the error on a web form), named by the field sent. */
  protected tooLong(what: 'identifier' | 'password'): ValidationError {
    if (what === 'password') return new ValidationError({ password: [`The password field must not be greater than ${MAX_PASSWORD_BYTES} bytes.`] })
    let field = 'email'
    try {
      const body = this.ctx.request.body as Record<string, unknown>
      if (body.email === undefined && body.username !== undefined) field = 'username'
    } catch {
      // An unreadable body: keep `email`.
    }
    return new ValidationError({ [field]: [`The ${field} field must not be greater than ${MAX_IDENTIFIER_BYTES} bytes.`] })
  }

  /**
   * The app's own login of the user with that primary key, through the login flow (method `id`,
   * amr `[]`): never challenged, since the app vouches for it; `mfa` routes ask for a step-up.
   */
  async attemptById(id: unknown): Promise<User | null> {
    const user = await this.deps.provider.findById(id)
    if (!user) return null
    await this.completeLogin({ user, method: 'id', amr: [] })
    return user
  }

  /** Records `user` as this request's user (after a login) or clears it (after a logout). */
  protected setUser(user: User | null): void {
    this.#user = user
    this.#ended = user === null
    this.#attempt = user ? Promise.resolve(user) : undefined
  }
}
