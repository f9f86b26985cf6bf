/**
 * @module auth/two-factor/pending-login
 * The login a correct password started for a user with two-factor authentication, waiting in the
 * session for its second step (`/two-factor-challenge`): the user's id, the guard, "remember me",
 * where to go afterwards (`next`), when it started, a random id (the key of its throttle
 * budget), and a fingerprint of the user's stored password hash: a password reset or change
 * between the two steps makes the pending login expired (`passwordFingerprint`). It lives `PENDING_LOGIN_SECONDS` (5 minutes); nobody is logged in until the step is
 * answered. The clock can be injected (tests).
 */
import type { HttpContext } from '../../http/context.js'
import type { AuthUser } from '../types.js'
import type { LoginMethod } from '../login/types.js'
import { PENDING_LOGIN_KEY } from '../login/amr.js'
import { ModelUserProvider, type ModelUser } from '../user-providers/model-user-provider.js'
import { randomToken, sha256Hex } from '../tokens/index.js'

/** Session key of the pending login (the login flow's state). */
export { PENDING_LOGIN_KEY }
/** How long a pending login waits for its second step. */
export const PENDING_LOGIN_SECONDS = 5 * 60

export interface PendingLogin {
  /** Random: the key of the pending login's throttle budget. */
  id: string
  userId: string | number
  guard: string
  remember: boolean
  /** A same-site path to go to after the login, or null (/home). */
  next: string | null
  /** Epoch ms. */
  createdAt: number
  /** `passwordFingerprint` of the user when the password was typed. */
  password: string | null
  /** How the first step was proven, and its amr (the login flow; absent: a password, `['pwd']`). */
  method?: LoginMethod
  amr?: string[]
  /** Fields for `auth:login_succeeded` once the step is answered. */
  details?: Record<string, unknown>
}

/**
 * A fingerprint of `user`'s stored password hash (the first 16 hex characters of its SHA-256), or
 * null when the guard's model is unknown or the user has none: it changes with every new password.
 */
export function passwordFingerprint(ctx: HttpContext, guard: string, user: AuthUser): string | null {
  const model = ctx.auth.manager.resolved.modelFor(guard)
  const hash = model ? new ModelUserProvider(model).passwordHashOf(user as ModelUser) : null
  return hash === null ? null : sha256Hex(hash).slice(0, 16)
}

/** What `PendingLogins.current` finds: the pending login, an expired one, or none. */
export type PendingLookup = { state: 'pending'; login: PendingLogin } | { state: 'expired' } | { state: 'none' }

function isPending(value: unknown): value is PendingLogin {
  if (!value || typeof value !== 'object') return false
  const v = value as Record<string, unknown>
  return (
    typeof v.id === 'string' &&
    (typeof v.userId === 'string' || typeof v.userId === 'number') &&
    typeof v.guard === 'string' &&
    typeof v.remember === 'boolean' &&
    (v.next === null || typeof v.next === 'string') &&
    typeof v.createdAt === 'number' &&
    (v.password === null || typeof v.password === 'string')
  )
}

export class PendingLogins {
  readonly #now: () => number
  readonly lifetimeMs: number

  constructor(options: { now?: () => number; lifetimeSeconds?: number } = {}) {
    this.#now = options.now ?? Date.now
    this.lifetimeMs = (options.lifetimeSeconds ?? PENDING_LOGIN_SECONDS) * 1000
  }

  /** Starts (or replaces) the session's pending login for `userId`. */
  start(ctx: HttpContext, userId: string | number, guard: string, options: { remember?: boolean; next?: string | null; password?: string | null } = {}): PendingLogin {
    const login: PendingLogin = { id: randomToken(16), userId, guard, remember: options.remember === true, next: options.next ?? null, createdAt: this.#now(), password: options.password ?? null }
    ctx.session.put(PENDING_LOGIN_KEY, login)
    return login
  }

  /** Changes "remember me" and `next` of the pending login (the login form knows them). */
  amend(ctx: HttpContext, options: { remember: boolean; next: string | null }): void {
    const found = this.current(ctx)
    if (found.state === 'pending') ctx.session.put(PENDING_LOGIN_KEY, { ...found.login, remember: options.remember, next: options.next })
  }

  /** The session's pending login; an expired one is forgotten and reported as such. */
  current(ctx: HttpContext): PendingLookup {
    if (!ctx.hasSession) return { state: 'none' }
    const value = ctx.session.get<unknown>(PENDING_LOGIN_KEY)
    if (value === undefined || value === null) return { state: 'none' }
    if (!isPending(value)) {
      ctx.session.forget(PENDING_LOGIN_KEY)
      return { state: 'none' }
    }
    const age = this.#now() - value.createdAt
    if (age < 0 || age >= this.lifetimeMs) {
      ctx.session.forget(PENDING_LOGIN_KEY)
      return { state: 'expired' }
    }
    return { state: 'pending', login: value }
  }

  forget(ctx: HttpContext): void {
    if (ctx.hasSession && ctx.session.has(PENDING_LOGIN_KEY)) ctx.session.forget(PENDING_LOGIN_KEY)
  }
}
