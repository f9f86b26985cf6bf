/**
 * @module auth/auth
 * `Auth`, reached as `ctx.auth`: a fresh instance per request, so the guard choice never leaks
 * between requests. `auth.guard('jwt')` gives the same API on another guard for this request.
 */
import type { HttpContext } from '../http/context.js'
import type { AuthManager } from './auth-manager.js'
import type { Guard } from './guards/guard.js'
import { MAX_PASSWORD_LENGTH, isPasswordTooLong } from './hashing/password-length.js'
import { AuthConfigError } from './errors.js'
import { UniqueConstraintError } from '../database/errors.js'

const GUARDS = Symbol('auth.guards')

export interface RegisterData {
  name?: unknown
  email?: unknown
  password?: unknown
  [key: string]: unknown
}

export class Auth {
  readonly #ctx: HttpContext
  readonly #manager: AuthManager
  #guardName: string

  constructor(ctx: HttpContext, manager: AuthManager, guardName?: string) {
    this.#ctx = ctx
    this.#manager = manager
    this.#guardName = guardName ?? manager.config.default
  }

  /** The seed's route list for web authentication (see AuthRoutes). */
  static routes: () => unknown[]

  get manager(): AuthManager {
    return this.#manager
  }

  /** The same API on another guard, for this request only. */
  guard(name: string): Auth {
    this.#current(name)
    return new Auth(this.#ctx, this.#manager, name)
  }

  /** Makes `name` this request's default guard (used by `guard:<name>` middleware). */
  use(name: string): this {
    this.#current(name)
    this.#guardName = name
    return this
  }

  get guardName(): string {
    return this.#guardName
  }

  #current(name = this.#guardName): Guard {
    const state = this.#ctx.state as { [GUARDS]?: Map<string, Guard> }
    const guards = (state[GUARDS] ??= new Map())
    let guard = guards.get(name)
    if (!guard) {
      guard = this.#manager.createGuard(this.#ctx, name)
      guards.set(name, guard)
    }
    return guard
  }

  /** The logged-in user, or null. */
  user<T = any>(): T | null {
    return this.#current().user() as T | null
  }

  /** Loads the user from the request's credentials (cookie or token); null when none. */
  check<T = any>(): Promise<T | null> {
    return this.#current().check() as Promise<T | null>
  }

  /** The user, logged in, or null. Throttled: may throw TooManyRequestsError. */
  attempt<T = any>(email: unknown, password: unknown): Promise<T | null> {
    return this.#current().attempt(email, password) as Promise<T | null>
  }

  /** The user with that primary key, logged in, or null when there is none. */
  attemptById<T = any>(id: unknown): Promise<T | null> {
    return this.#current().attemptById(id) as Promise<T | null>
  }

  login(user: unknown): Promise<void> {
    return this.#current().login(user)
  }

  /** Logs out and revokes the login server-side. */
  async logout(): Promise<this> {
    await this.#current().logout()
    return this
  }

  /**
   * Creates the user from the model's fillable fields only (password hashed, e-mail trimmed),
   * logs in and returns it. Validate first (AuthForms does); this does not check the policy.
   */
  async register<T = any>(data: RegisterData): Promise<T> {
    const model = this.#manager.model
    if (!model) throw new AuthConfigError('GUARDS.web.model is not set in config/auth.ts.')
    const attributes: Record<string, unknown> = { ...data }
    const authColumn: string = model.authColumn ?? 'email'
    const passwordColumn: string = model.passwordColumn ?? 'password'
    if (typeof attributes[authColumn] === 'string') attributes[authColumn] = (attributes[authColumn] as string).trim()
    const password = attributes[passwordColumn]
    if (typeof password !== 'string' || password.length === 0 || isPasswordTooLong(password)) {
      throw new AuthConfigError(`auth.register needs a password string of 1 to ${MAX_PASSWORD_LENGTH} characters.`)
    }
    // The address is unique without case (the users migration's lower(email) index enforces it
    // against races); checked first so that a taken address costs no hash.
    if (typeof model.findForAuth === 'function' && (await model.findForAuth(attributes[authColumn]))) {
      throw new UniqueConstraintError(authColumn)
    }
    attributes[passwordColumn] = await this.#manager.hasher.hash(password)
    const user = await model.create(attributes)
    this.#ctx.app.log.info('auth.registered', { user_id: user.getKey(), ip: this.#ctx.request.ip() })
    await this.#current().login(user)
    return user as T
  }

  /** Starts a reset: e-mails a link when the address exists; answers the same either way. */
  async passwordReset(email: unknown): Promise<void> {
    await this.#manager.broker.sendResetLink(email)
  }

  /** Finishes a reset: the user with the new password (every login revoked), or null. */
  resetPassword<T = any>(token: unknown, password: string): Promise<T | null> {
    return this.#manager.broker.reset(token, password) as Promise<T | null>
  }
}
