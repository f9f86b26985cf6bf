/**
 * @module auth/auth
 * `Auth`, reached as `ctx.auth`: a fresh instance per request, so the guard choice never leaks
 * between requests. Each guard is built once per request and shared by every `Auth` of that
 * request: `auth.guard('jwt')` gives the same API on another guard, and the user it found stays
 * found. Registration and password resets are delegated to the manager's Registrar and
 * PasswordBroker; this class adds the login and the event around them.
 */
import { HttpContext } from '../http/context.js'
import { FrameworkError } from '../foundation/framework-error.js'
import '../session/context-session.js'
import type { AuthManager } from './auth-manager.js'
import type { Guard } from './guards/guard.js'
import { BaseGuard } from './guards/base-guard.js'
import type { RegisterData } from './registrar.js'
import type { AuthUser } from './types.js'
import { eventBase } from './events.js'
import { Budget } from './throttle/budget.js'
import { clientKey } from './throttle/client-key.js'
import { normalizeEmail } from './email.js'
import { authRoutes } from './auth-routes.js'
import type { RouteEntry } from '../routing/route-group.js'
import { requestAllows } from './authorization/request-gate.js'
import { forbidden } from './authorization/errors.js'

export type { RegisterData }

/** At most one reset e-mail per address in this window (section 9 item 6). */
export const RESET_MAIL_LIMIT = Object.freeze({ attempts: 1, minutes: 1 })

export class Auth {
  readonly #ctx: HttpContext
  readonly #manager: AuthManager
  readonly #guards: Map<string, Guard<any>>
  #guardName: string

  constructor(ctx: HttpContext, manager: AuthManager, guardName?: string, guards: Map<string, Guard<any>> = new Map()) {
    this.#ctx = ctx
    this.#manager = manager
    this.#guards = guards
    this.#guardName = guardName ?? manager.defaultGuard
  }

  /** The login pages and the routes of the features that are on (see auth-routes.ts). */
  static routes(options?: { features?: Iterable<string> }): RouteEntry[] {
    return authRoutes(options)
  }

  get manager(): AuthManager {
    return this.#manager
  }

  /** The same API on another guard, for this request only. */
  guard(name: string): Auth {
    this.resolve(name)
    return new Auth(this.#ctx, this.#manager, name, this.#guards)
  }

  /** Makes `name` this request's default guard (used by `guard:<name>` middleware). */
  use(name: string): this {
    this.resolve(name)
    this.#guardName = name
    return this
  }

  get guardName(): string {
    return this.#guardName
  }

  /** This request's instance of guard `name` (default: the current one). */
  resolve<G extends Guard<any> = Guard<any>>(name = this.#guardName): G {
    let guard = this.#guards.get(name)
    if (!guard) {
      guard = this.#manager.createGuard(this.#ctx, name)
      this.#guards.set(name, guard)
    }
    return guard as G
  }

  /** The logged-in user, or null (known once the guard has checked the request). */
  user<T = any>(): T | null {
    return this.resolve().user as T | null
  }

  /** True when the request carries valid credentials for this guard. */
  check(): Promise<boolean> {
    return this.resolve().check()
  }

  /** The request's user; throws a 401 error when there is none. */
  authenticate<T = any>(): Promise<T> {
    return this.resolve().authenticate() as Promise<T>
  }

  /**
   * Whether this guard's user (a guest: usually not) may do `ability` with `args`: a policy of the
   * first argument's model, else the ability's gate, else (no argument) the current membership's
   * role abilities. See docs/authorization.md.
   */
  async can(ability: string, ...args: unknown[]): Promise<boolean> {
    const user = (await this.check()) ? this.user<AuthUser>() : null
    return requestAllows(this.#ctx, user, ability, args)
  }

  /** Resolves when `can(ability, ...args)`, else throws 403 `E_FORBIDDEN` (alias `ctx.authorize`). */
  async authorize(ability: string, ...args: unknown[]): Promise<void> {
    if (!(await this.can(ability, ...args))) throw forbidden()
  }

  /** The user, logged in, or null. Throttled: may throw TooManyRequestsError. */
  attempt<T = any>(email: unknown, password: unknown): Promise<T | null> {
    return this.resolve().attempt(email, password) as Promise<T | null>
  }

  /** The user with that primary key, logged in, or null when there is none. */
  attemptById<T = any>(id: unknown): Promise<T | null> {
    return this.resolve().attemptById(id) as Promise<T | null>
  }

  login(user: unknown): Promise<void> {
    return this.resolve().login(user)
  }

  /** Logs out and revokes the login server-side. */
  async logout(): Promise<this> {
    await this.resolve().logout()
    return this
  }

  /**
   * Creates the user from the model's fillable fields only (password hashed, e-mail trimmed),
   * logs in and returns it. Validate first (AuthForms does); this does not check the policy.
   */
  async register<T = any>(data: RegisterData): Promise<T> {
    const user = await this.#manager.registrar.create<T & { getKey(): unknown }>(data)
    // Through the login flow, unchallenged (amr []): `auth:registered` is its event, not a login's.
    const guard = this.resolve()
    if (guard instanceof BaseGuard) await guard.completeLogin({ user, method: 'id', amr: [] }, { event: false })
    else await guard.login(user)
    this.#manager.events.emit('auth:registered', eventBase(this.#ctx, this.#guardName, user))
    return user
  }

  /**
   * Starts a reset and returns at once: the look-up, the token write and the e-mail run after
   * this request has been answered, so the answer and its timing are the same whether or not the
   * address exists. An address gets at most one e-mail a minute (`reset_mail` in the throttle
   * store, keyed by the normalised address; off with `GUARDS.throttle.reset: null`): a second
   * request within the minute changes nothing and sends nothing. Background failures are logged
   * (`auth.reset_request_failed`), never thrown.
   */
  passwordReset(email: unknown): Promise<void> {
    const ctx = this.#ctx
    const guard = this.#guardName
    const manager = this.#manager
    const reset = manager.budgets.reset
    const mailBudget = new Budget('reset_mail', reset.store, reset.limit === null ? null : RESET_MAIL_LIMIT)
    const where = { ip: ctx.request.ip(), request_id: ctx.request.id } // read now, for the log lines after
    const work = async (): Promise<void> => {
      const requested = await manager.broker.request(email, { mailBudget })
      if (requested && requested.token === null) {
        ctx.app.log.info('auth.reset_mail_held_back', { user_id: requested.user?.getKey?.() ?? null, ...where })
      }
      manager.events.emit('auth:password_reset_requested', eventBase(ctx, guard, requested?.user ?? null))
    }
    ctx.app.background(work, (error) =>
      ctx.app.log.error('auth.reset_request_failed', { ...where, error: error instanceof Error ? error.message : String(error) }),
    )
    return Promise.resolve()
  }

  /** Finishes a reset: the user with the new password (every login revoked), or null. */
  async resetPassword<T = any>(token: unknown, password: string): Promise<T | null> {
    const user = await this.#manager.broker.reset(token, password)
    if (!user) return null
    this.#manager.events.emit('auth:password_reset', eventBase(this.#ctx, this.#guardName, user))
    // The owner proved control of the address: this address's failed-login budget starts again.
    const login = this.#manager.budgets.login
    const column = this.#manager.model?.authColumn ?? 'email'
    try {
      await login.clear(login.key(normalizeEmail(user[column]), clientKey(this.#ctx.request.ip())))
    } catch (error) {
      this.#ctx.app.log.warn('auth.reset_budget_clear_failed', { error })
    }
    return user as T
  }
}

declare module '../http/context.js' {
  interface HttpContext {
    /** The per-request `Auth` (guard choice never leaks between requests), built on first use by the `http.context.auth` factory (AuthProvider). */
    auth: Auth
  }
}

const AUTH = Symbol('ctx.auth')
type WithAuth = HttpContext & { [AUTH]?: Auth }

HttpContext.decorate(
  'auth',
  {
    get(this: WithAuth) {
      if (this[AUTH] === undefined) {
        if (!this.app.has('http.context.auth')) {
          throw new FrameworkError('E_AUTH_NOT_CONFIGURED', 'ctx.auth is not available: config/auth.ts is missing or AuthProvider is not registered.')
        }
        this[AUTH] = this.app.make<(ctx: HttpContext) => Auth>('http.context.auth')(this)
      }
      return this[AUTH]
    },
    set(this: WithAuth, value: Auth) {
      this[AUTH] = value
    },
  },
  { requires: ['session'] },
)
