/**
 * @module auth/guards/web/guard
 * The `web` guard: logins held by a cookie. The cookie (`trowel_auth`, signed with APP_KEY,
 * HttpOnly, SameSite=Lax, Secure over HTTPS, no Max-Age) holds an opaque random token; the
 * database holds only its SHA-256, one row per device. A request is authenticated by two
 * look-ups on unique keys: the login by token hash, then the user by primary key. Login
 * regenerates the session (new id, new CSRF token); logout deletes this device's row, clears the
 * cookie and invalidates the session, so a replayed old cookie is logged out.
 *
 * A login with a password also sets `trowel_device` (signed with APP_KEY, HttpOnly,
 * SameSite=Lax, Secure over HTTPS, one year): a random device id and the account it logged into.
 * Checking it needs no database (the signature is the proof); a later attempt on that account
 * from this browser is counted on the device's own budget, so a flood against the account from
 * elsewhere never locks this device out. Logging out keeps it: the device stays known.
 */
import type { HttpContext } from '../../../http/context.js'
import type { AuthUser } from '../../types.js'
import { eventBase } from '../../events.js'
import { BaseGuard } from '../base-guard.js'
import { randomToken } from '../../../support/random-token.js'
import { AUTH_COOKIE, type WebGuardDependencies } from './types.js'

/** The known-device cookie: `<random device id>.<base64url of the account's primary key>`, signed. */
export const DEVICE_COOKIE = 'trowel_device'
/** One year, in seconds. */
const DEVICE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60

/** The device id and account of a verified device cookie value, or null. */
export function parseDeviceCookie(value: string | undefined): { device: string; account: string } | null {
  if (!value) return null
  const dot = value.indexOf('.')
  if (dot < 1 || dot === value.length - 1) return null
  return { device: value.slice(0, dot), account: Buffer.from(value.slice(dot + 1), 'base64url').toString('utf8') }
}

export class WebGuard<User extends AuthUser = AuthUser> extends BaseGuard<User> {
  readonly driverName = 'session'
  readonly #deps: WebGuardDependencies<User>

  constructor(name: string, ctx: HttpContext, deps: WebGuardDependencies<User>) {
    super(name, ctx, deps)
    this.#deps = deps
  }

  protected async resolve(): Promise<User> {
    const token = this.ctx.request.cookie(AUTH_COOKIE)
    if (!token) throw this.unauthenticated()
    const userId = await this.#deps.tokens.findUserId(token)
    const user = userId === null ? null : await this.#deps.provider.findById(userId)
    if (!user) {
      this.ctx.response.clearCookie(AUTH_COOKIE)
      throw this.unauthenticated()
    }
    return user
  }

  /** A password login also marks this browser as a known device of the account (`trowel_device`). */
  override async attempt(identifier: unknown, password: unknown): Promise<User | null> {
    const user = await super.attempt(identifier, password)
    if (user) this.#rememberDevice(user)
    return user
  }

  protected override deviceFor(accountId: unknown): string | null {
    const cookie = parseDeviceCookie(this.ctx.request.cookie(DEVICE_COOKIE))
    return cookie !== null && cookie.account === String(accountId) ? cookie.device : null
  }

  #rememberDevice(user: User): void {
    // The same device id for every account this browser logs into.
    const device = parseDeviceCookie(this.ctx.request.cookie(DEVICE_COOKIE))?.device ?? randomToken(16)
    const account = Buffer.from(String(user.getKey()), 'utf8').toString('base64url')
    this.ctx.response.cookie(DEVICE_COOKIE, `${device}.${account}`, { maxAge: DEVICE_COOKIE_MAX_AGE })
  }

  async login(user: User): Promise<void> {
    const { request, response } = this.ctx
    const previous = request.cookie(AUTH_COOKIE)
    if (previous) await this.#deps.tokens.revoke(previous)
    const token = await this.#deps.tokens.create(user.getKey(), { ip: request.ip(), userAgent: request.header('user-agent') })
    response.cookie(AUTH_COOKIE, token)
    if (this.ctx.hasSession) await this.ctx.session.regenerate()
    this.setUser(user)
  }

  async logout(): Promise<void> {
    const user = this.user ?? ((await this.check()) ? this.user : null)
    const token = this.ctx.request.cookie(AUTH_COOKIE)
    if (token) await this.#deps.tokens.revoke(token)
    this.ctx.response.clearCookie(AUTH_COOKIE)
    if (this.ctx.hasSession) await this.ctx.session.invalidate()
    this.setUser(null)
    if (user) this.#deps.events.emit('auth:logout', eventBase(this.ctx, this.name, user))
  }
}
