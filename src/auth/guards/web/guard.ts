/**
 * @module auth/guards/web/guard
 * The `web` guard: logins held by a cookie. The cookie (`trowel_auth`, signed with APP_KEY,
 * HttpOnly, SameSite=Lax, Secure over HTTPS, no Max-Age) holds an opaque random token; the
 * database holds only its SHA-256, one row per device. A request is authenticated by two
 * look-ups on unique keys: the login by token hash, then the user by primary key (one statement
 * joining the two, synchronous on SQLite; see `join-source.ts`). Login
 * regenerates the session (new id, new CSRF token); logout deletes this device's row, clears the
 * cookie and invalidates the session, so a replayed old cookie is logged out.
 *
 * Every login (see auth/login, the one flow that calls `login`) also sets `trowel_device` (signed with APP_KEY, HttpOnly,
 * SameSite=Lax, Secure over HTTPS, one year): a random device id and the account it logged into.
 * Checking it needs no database (the signature is the proof); a later attempt on that account
 * from this browser is counted on the device's own budget, so a flood against the account from
 * elsewhere never locks this device out. Logging out keeps it: the device stays known.
 *
 * "Remember me" (`trowel_remember`, see remember-token-repository.ts) is consulted only when the
 * request has no valid login: a browser restart (the login cookie is gone) or a login past its
 * lifetime or idle timeout. A current remember token is replaced (one winner among concurrent
 * requests) and a fresh login made for it; a token replaced less than `remember_reuse_window`
 * seconds ago (default 10: another tab, a lost answer) restores the login its successor holds, for
 * that request; any other token of a known series is theft: the series and its login end, both
 * cookies are cleared and `auth:remember_reuse` is emitted. A restore ends in the login flow
 * (`method: 'remember'`): the amr the cookie kept beside its token (the value is
 * `<series>.<token>.<amr>`, signed), the device cookie, `auth:login_succeeded`. Such a login never
 * counts as a typed password for `password.confirm`; a password login does.
 *
 * `rotate()` replaces this browser's login token and remember-me token in place (a password
 * change, "log out other devices", a completed step-up): the user stays logged in with what the
 * login earned, and the old cookie values, wherever a copy went, log in no more.
 *
 * What the session knows about a login (how it was made, `auth.amr`; when the password was last
 * typed; where a confirmation or step-up goes back to) belongs to that login only: the session
 * holds `auth.login`, the SHA-256 of the login token it was earned with, set by every login. A
 * request whose login is another one (a `trowel_auth` cookie paired with some other session)
 * finds those keys forgotten, so it must confirm and step up for itself. Checking it costs one
 * hash of the token, no query.
 */
import type { HttpContext } from '../../../http/context.js'
import type { AuthUser } from '../../types.js'
import { eventBase } from '../../events.js'
import { BaseGuard } from '../base-guard.js'
import { randomToken } from '../../../support/random-token.js'
import { sha256Hex } from '../../tokens/index.js'
import { CONFIRM_INTENDED, PASSWORD_CONFIRMED_AT } from '../../middleware/password-confirm-middleware.js'
import { AUTH_COOKIE, REMEMBER_COOKIE, type WebGuardDependencies } from './types.js'
import type { DeviceRevocations } from '../../inventory/device-cookies.js'
import { AMR_SESSION_KEY, MFA_INTENDED, SECOND_FACTOR_AT, sessionAmr } from '../../login/amr.js'
import { finishRestoredLogin } from '../../login/flow.js'
import { UNAVAILABLE } from '../../../database/prepared-lookup.js'
import { joinSource } from './join-source.js'

/** The known-device cookie: `<random device id>.<base64url of the account's primary key>.<issued at, epoch seconds>`, signed. */
export const DEVICE_COOKIE = 'trowel_device'
/** Session key: SHA-256 of the token of the login whose state the session holds. */
export const LOGIN_BINDING_KEY = 'auth.login'
/** Session keys earned by one login, forgotten when the session meets another login (with the features' `loginSessionKeys`). */
const LOGIN_BOUND_KEYS = [AMR_SESSION_KEY, PASSWORD_CONFIRMED_AT, CONFIRM_INTENDED, MFA_INTENDED, SECOND_FACTOR_AT]
/** One year, in seconds. */
const DEVICE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60

/**
 * The device id, account and issue time (epoch seconds; 0 for a cookie written before cookies
 * carried it) of a verified device cookie value, or null.
 */
export function parseDeviceCookie(value: string | undefined): { device: string; account: string; issuedAt: number } | null {
  if (!value) return null
  const [device, account, issued, ...rest] = value.split('.')
  if (!device || !account || rest.length > 0 || (issued !== undefined && !/^[0-9]{1,12}$/.test(issued))) return null
  return { device, account: Buffer.from(account, 'base64url').toString('utf8'), issuedAt: issued === undefined ? 0 : Number(issued) }
}

/**
 * The device id of this request's `trowel_device` cookie when it names `accountId` and was issued
 * after the account's device cookies were last revoked ("This wasn't me", a password reset), else
 * null: a revoked cookie is a new device again (the account's budget, the new-device notice).
 */
export async function knownDeviceOf(ctx: HttpContext, devices: DeviceRevocations | undefined, accountId: unknown): Promise<string | null> {
  const cookie = parseDeviceCookie(ctx.request.cookie(DEVICE_COOKIE))
  if (cookie === null || cookie.account !== String(accountId)) return null
  if (devices && !(await devices.isCurrent(accountId, cookie.issuedAt))) return null
  return cookie.device
}

/** One amr value as the remember-me cookie may carry it (RFC 8176 names are short, lowercase). */
const AMR_VALUE = /^[a-z]{2,16}$/

/**
 * The remember-me cookie's value: the repository's `<series>.<token>`, then `.` and the amr of
 * the login it was made for (comma-separated; none: nothing added). The cookie is signed with
 * APP_KEY, so the amr a restore brings back is the one stored with the token, never one the
 * browser chose.
 */
function rememberCookieValue(value: string, amr: readonly string[]): string {
  const kept = amr.filter((x) => AMR_VALUE.test(x))
  return kept.length === 0 ? value : `${value}.${kept.join(',')}`
}

/** The repository's part and the amr of a remember-me cookie (see rememberCookieValue). */
function readRememberCookie(cookie: string | undefined): { value: string; amr: string[] } | undefined {
  if (cookie === undefined) return undefined
  const [series, token, amr, ...rest] = cookie.split('.')
  if (amr === undefined || rest.length > 0) return { value: cookie, amr: [] }
  return { value: `${series}.${token}`, amr: [...new Set(amr.split(',').filter((x) => AMR_VALUE.test(x)))] }
}

/**
 * Rotates the current web login of the request (`WebGuard.rotate`), whichever guard is the
 * default: false when the request has no web login.
 */
export async function rotateCurrentLogin(ctx: HttpContext): Promise<boolean> {
  const guard = ctx.auth.manager.resolved.defaultGuard
  let web: unknown
  try {
    web = ctx.auth.resolve(guard)
  } catch {
    return false
  }
  return web instanceof WebGuard ? web.rotate() : false
}

export class WebGuard<User extends AuthUser = AuthUser> extends BaseGuard<User> {
  readonly driverName = 'session'
  readonly #deps: WebGuardDependencies<User>
  /** The device id this request's logins mark the browser with (`trowel_device`), chosen once. */
  #deviceId: string | undefined
  /** The login token this request holds now: the cookie's, or the one a login or restore just made. */
  #loginToken: string | undefined

  constructor(name: string, ctx: HttpContext, deps: WebGuardDependencies<User>) {
    super(name, ctx, deps)
    this.#deps = deps
  }

  /**
   * Whether the request carries anything this guard could log in from (the login cookie, or a
   * "remember me" cookie with the feature on). Without either, nobody is logged in: no query.
   */
  hasCredentials(): boolean {
    const { request } = this.ctx
    return request.cookie(AUTH_COOKIE) !== undefined || (this.#deps.remember !== undefined && this.#deps.remember !== null && request.cookie(REMEMBER_COOKIE) !== undefined)
  }

  protected resolve(): User | Promise<User> {
    const token = this.ctx.request.cookie(AUTH_COOKIE)
    if (!token) return this.#resolveRemembered()
    // Hashed once: the look-up and the session binding use the same digest.
    const digest = sha256Hex(token)
    // A login in good standing on SQLite: the login and its user in one synchronous read.
    const user = this.#joinedUser(token, digest)
    return user === undefined ? this.#resolveByReads(token, digest) : this.#loggedIn(user, token, digest)
  }

  /**
   * `resolve()` when the synchronous joined read could not answer: on PostgreSQL and MySQL the
   * same join as one query; else (or for a login to end or touch) the login, then its user.
   */
  async #resolveByReads(token: string, digest: string): Promise<User> {
    const source = joinSource(this.#deps.provider, token)
    const joined = source ? await this.#deps.tokens.findWithUser?.(digest, source.users) : UNAVAILABLE
    let user: User | null
    if (joined === null) user = null
    else if (joined !== undefined && joined !== UNAVAILABLE) user = source!.model.hydrate(joined.user) as User
    else {
      const userId = await this.#deps.tokens.findUserId(token, digest)
      user = userId === null ? null : await this.#deps.provider.findById(userId)
    }
    if (user) return this.#loggedIn(user, token, digest)
    this.ctx.response.clearCookie(AUTH_COOKIE)
    return this.#resolveRemembered()
  }

  #loggedIn(user: User, token: string, digest: string): User {
    this.#loginToken = token
    this.#bindSessionHash(digest)
    return user
  }

  /** Only now, with no valid login, is "remember me" consulted: a logged-in request pays nothing for it. */
  async #resolveRemembered(): Promise<User> {
    const restored = await this.#restore()
    if (restored) return restored
    throw this.unauthenticated()
  }

  /** The login and its user in one synchronous read (see `joinSource`); undefined when that cannot answer. */
  #joinedUser(token: string, digest: string): User | undefined {
    const source = joinSource(this.#deps.provider, token)
    if (!source || typeof this.#deps.tokens.findWithUserNow !== 'function') return undefined
    const found = this.#deps.tokens.findWithUserNow(digest, source.users)
    return found === UNAVAILABLE ? undefined : (source.model.hydrate(found.user) as User)
  }

  /**
   * Keeps this device logged in across browser restarts: starts a "remember me" series holding the
   * login just made (`trowel_remember`, Max-Age `GUARDS.web.remember_lifetime`). Call it after a
   * login; false (nothing done) when the `remember_me` feature is off or nobody is logged in.
   * `amr` (default: the session's) is how that login was made: a restore brings it back.
   */
  async remember(amr?: readonly string[]): Promise<boolean> {
    const remember = this.#deps.remember
    const user = this.user
    if (!remember || !user || !this.#loginToken) return false
    const value = await remember.create(user.getKey(), sha256Hex(this.#loginToken))
    this.ctx.response.cookie(REMEMBER_COOKIE, rememberCookieValue(value, amr ?? sessionAmr(this.ctx)), { maxAge: remember.maxAgeSeconds })
    return true
  }

  /** The user a `trowel_remember` cookie logs in for this request, or null (see the module comment). */
  async #restore(): Promise<User | null> {
    const remember = this.#deps.remember
    const presented = remember ? readRememberCookie(this.ctx.request.cookie(REMEMBER_COOKIE)) : undefined
    if (!remember || !presented) return null
    const cookie = presented.value
    const { request, response } = this.ctx
    let found = await remember.find(cookie)
    if (found.state === 'current') {
      const user = await this.#deps.provider.findById(found.row.user_id)
      if (!user) {
        await remember.endDevice(found.row)
        this.#clearRememberCookies()
        return null
      }
      // The new login first, so the winning rotation can point the series at it in the same write.
      const login = await this.#deps.tokens.create(user.getKey(), { ip: request.ip(), userAgent: request.header('user-agent') })
      const rotated = await remember.rotate(found, sha256Hex(login))
      if (rotated) {
        if (found.row.login_token_hash) await remember.endLogin(found.row.login_token_hash)
        this.#loginToken = login
        response.cookie(AUTH_COOKIE, login)
        response.cookie(REMEMBER_COOKIE, rememberCookieValue(rotated, presented.amr), { maxAge: remember.maxAgeSeconds })
        if (this.ctx.hasSession) {
          // A new login: a new session id and CSRF token. It is not a typed password.
          this.ctx.session.regenerate()
          this.#bindSession(login)
        }
        this.#rememberDevice(user)
        this.ctx.app.log.info('auth.remembered', { user_id: user.getKey(), ip: request.ip(), request_id: request.id })
        // The login flow's end of a restore: the amr stored with the token, `auth:login_succeeded`.
        await finishRestoredLogin(this.ctx, this.name, this.#deps.events, user, presented.amr)
        return user
      }
      // Another request presenting the same token rotated it first: read again (normally `grace`).
      await this.#deps.tokens.revoke(login)
      found = await remember.find(cookie)
    }
    if (found.state === 'grace') {
      // The login the successor holds, for this request: no new login, no cookie set (the
      // rotation's answer carried them). That login gone (logged out, revoked): nothing to restore.
      if (!(await remember.loginExists(found.row.login_token_hash))) return null
      const user = await this.#deps.provider.findById(found.row.user_id)
      if (user) {
        this.#bindSessionHash(found.row.login_token_hash!)
        return user
      }
      await remember.endDevice(found.row)
      this.#clearRememberCookies()
      return null
    }
    if (found.state === 'theft') {
      await remember.endDevice(found.row)
      this.#clearRememberCookies()
      const user = await this.#deps.provider.findById(found.row.user_id)
      this.ctx.app.log.warn('auth.remember_theft', { user_id: found.row.user_id, ip: request.ip(), request_id: request.id })
      if (user) this.#deps.events.emit('auth:remember_reuse', eventBase(this.ctx, this.name, user))
      return null
    }
    if (found.state === 'expired') await remember.endDevice(found.row)
    response.clearCookie(REMEMBER_COOKIE)
    return null
  }

  #clearRememberCookies(): void {
    this.ctx.response.clearCookie(REMEMBER_COOKIE)
    this.ctx.response.clearCookie(AUTH_COOKIE)
  }

  /**
   * Ties the session to the login holding `token`: when it held another login's state (or none
   * was recorded), that state is forgotten (see the module comment). A hash, no query.
   */
  #bindSession(token: string): void {
    this.#bindSessionHash(sha256Hex(token))
  }

  #bindSessionHash(binding: string): void {
    if (!this.ctx.hasSession) return
    if (this.ctx.session.get<unknown>(LOGIN_BINDING_KEY) === binding) return
    this.#forgetLoginState()
    this.ctx.session.put(LOGIN_BINDING_KEY, binding)
  }

  /** Forgets what the session knew about a login: its amr, password confirmation, intended pages. */
  #forgetLoginState(): void {
    if (!this.ctx.hasSession) return
    const session = this.ctx.session
    for (const key of [...LOGIN_BOUND_KEYS, ...(this.#deps.loginSessionKeys ?? [])]) if (session.has(key)) session.forget(key)
  }

  override async knownDevice(accountId: unknown): Promise<boolean> {
    return (await this.deviceFor(accountId)) !== null
  }

  protected override deviceFor(accountId: unknown): Promise<string | null> {
    return knownDeviceOf(this.ctx, this.#deps.devices, accountId)
  }

  #rememberDevice(user: User): void {
    // The same device id for every account this browser logs into (and for both calls of one login).
    const device = (this.#deviceId ??= parseDeviceCookie(this.ctx.request.cookie(DEVICE_COOKIE))?.device ?? randomToken(16))
    const account = Buffer.from(String(user.getKey()), 'utf8').toString('base64url')
    const issuedAt = Math.floor(Date.now() / 1000)
    this.ctx.response.cookie(DEVICE_COOKIE, `${device}.${account}.${issuedAt}`, { maxAge: DEVICE_COOKIE_MAX_AGE })
  }

  /** Logs `user` in on this browser (see the module comment); the login flow calls it (auth/login). */
  async login(user: User, _amr?: readonly string[]): Promise<void> {
    const { request, response } = this.ctx
    const previous = this.#loginToken ?? request.cookie(AUTH_COOKIE)
    if (previous) await this.#deps.tokens.revoke(previous)
    // A new login ends this device's earlier "remember me" (`remember()` starts a new one).
    await this.#forgetRemembered()
    const token = await this.#deps.tokens.create(user.getKey(), { ip: request.ip(), userAgent: request.header('user-agent') })
    this.#loginToken = token
    response.cookie(AUTH_COOKIE, token)
    // Any login (a password, registration, attemptById) makes this browser a known device of the
    // account: the browser that registered gets no "new device" e-mail when it logs in again.
    this.#rememberDevice(user)
    if (this.ctx.hasSession) {
      await this.ctx.session.regenerate()
      // What an earlier login of this session earned says nothing about this one (its caller sets
      // how it was made, and whether a password was typed).
      this.#bindSession(token)
    }
    this.setUser(user)
  }

  /** The SHA-256 of the login token this request holds (the cookie's, or one just made), or null. */
  get loginTokenHash(): string | null {
    const token = this.#loginToken ?? this.ctx.request.cookie(AUTH_COOKIE)
    return typeof token === 'string' && token !== '' ? sha256Hex(token) : null
  }

  /**
   * Replaces this browser's login token and its "remember me" token (see the module comment):
   * the same login row and series, new secrets, new cookies; the session keeps what this login
   * earned. False (nothing done) when nobody is logged in with a login token of their own (e.g. a
   * request let in by a just-replaced remember token) or the login ended meanwhile.
   */
  async rotate(): Promise<boolean> {
    const user = this.user ?? ((await this.check()) ? this.user : null)
    const old = this.#loginToken
    if (!user || !old) return false
    const token = await this.#deps.tokens.rotate(old)
    if (token === null) return false
    const { request, response } = this.ctx
    this.#loginToken = token
    response.cookie(AUTH_COOKIE, token)
    // The same login: the session's state moves to the new token instead of being forgotten.
    if (this.ctx.hasSession && this.ctx.session.get<unknown>(LOGIN_BINDING_KEY) === sha256Hex(old)) {
      this.ctx.session.put(LOGIN_BINDING_KEY, sha256Hex(token))
    }
    const remember = this.#deps.remember
    const cookie = remember ? readRememberCookie(request.cookie(REMEMBER_COOKIE))?.value : undefined
    if (remember && cookie !== undefined) {
      const found = await remember.find(cookie)
      if ((found.state === 'current' || found.state === 'grace') && String(found.row.user_id) === String(user.getKey())) {
        const value = await remember.replaceSeries(found, sha256Hex(token))
        const left = Math.round(((new Date(found.row.expires_at as string | number | Date).getTime() || Date.now()) - Date.now()) / 1000)
        // The login's amr now (a step-up rotates after recording its factor).
        if (value) response.cookie(REMEMBER_COOKIE, rememberCookieValue(value, sessionAmr(this.ctx)), { maxAge: Math.max(1, Math.min(left, remember.maxAgeSeconds)) })
      }
    }
    this.ctx.app.log.info('auth.login_rotated', { user_id: user.getKey(), request_id: request.id })
    return true
  }

  async logout(): Promise<void> {
    const user = this.user ?? ((await this.check()) ? this.user : null)
    const token = this.#loginToken ?? this.ctx.request.cookie(AUTH_COOKIE)
    if (token) await this.#deps.tokens.revoke(token)
    this.#loginToken = undefined
    await this.#forgetRemembered()
    this.ctx.response.clearCookie(AUTH_COOKIE)
    if (this.ctx.hasSession) await this.ctx.session.invalidate()
    this.setUser(null)
    if (user) this.#deps.events.emit('auth:logout', eventBase(this.ctx, this.name, user))
  }

  /** Ends the "remember me" series this request's cookie names, and clears the cookie. */
  async #forgetRemembered(): Promise<void> {
    const cookie = readRememberCookie(this.ctx.request.cookie(REMEMBER_COOKIE))?.value
    if (cookie === undefined) return
    if (this.#deps.remember) await this.#deps.remember.forget(cookie)
    this.ctx.response.clearCookie(REMEMBER_COOKIE)
  }
}
