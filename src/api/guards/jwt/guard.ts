/**
 * @module api/guards/jwt/guard
 * The `jwt` guard: the one place a Bearer token is read, verified and turned into a user, once
 * per request (the three `api`-stack middleware only call it).
 * - `verifyRequest()`: signature, algorithm, expiry and version; with `authenticates: true` also
 *   the stored digest. Missing: 401 `E_TOKEN_MISSING`; refused: 401 `E_TOKEN_INVALID` (the
 *   JwtError kept as `cause`). No query unless `authenticates` is on.
 * - `subject()`: the user the token names (`sub`), for `request.user()`.
 * - `authenticate()`/`check()`: the user whose current token this is (`auth.user()`): a token
 *   already replaced by a reissue authenticates nobody.
 * Every user read is the same single primary-key look-up, made at most once per request. The
 * verified token is also left in `ctx.state.jwt`, for routes that need only its claims.
 * `verifyRequestNow()`/`subjectNow()` answer without a promise when nothing has to wait (no
 * query, or SQLite's kept statement), so the `api` stack's middleware add no microtask turns.
 */
import type { HttpContext } from '../../../http/context.js'
import type { AuthUser } from '../../../auth/types.js'
import { BaseGuard } from '../../../auth/guards/base-guard.js'
import { eventBase } from '../../../auth/events.js'
import { timingSafeEqualString } from '../../../auth/tokens/index.js'
import { JwtError, JwtRevokedError } from '../../jwt/index.js'
import { ReauthFailedError, TokenInvalidError, TokenMissingError, TokenReusedError } from '../../errors.js'
import type { ReuseDetail } from '../../families/token-families.js'
import { UNAVAILABLE } from '../../../database/prepared-lookup.js'
import { bearerToken } from './bearer-token.js'
import { VerifiedBearer } from './verified-bearer.js'
import type { JwtGuardDependencies, TokenRecord, VerifiedToken } from './types.js'
import { looksPersonal } from '../../personal-tokens/token-format.js'
import { PersonalBearer } from '../../personal-tokens/personal-bearer.js'
import { ALL_ABILITIES } from '../../personal-tokens/abilities.js'
import type { PersonalToken } from '../../personal-tokens/repository.js'
import { personalEventDetail } from '../../personal-tokens/issue.js'

/** A JWT's abilities: all of them (one frozen list shared by every request). */
const JWT_ABILITIES: readonly string[] = Object.freeze([ALL_ABILITIES])

export class JwtGuard<User extends AuthUser = AuthUser> extends BaseGuard<User> {
  readonly driverName = 'jwt'
  /** The token the last login on this guard issued, for this request. */
  token: string | null = null
  readonly #deps: JwtGuardDependencies<User>
  #verified: Promise<VerifiedToken> | undefined
  #record: Promise<TokenRecord<User> | null> | undefined
  // The settled values too, so later callers in the request skip awaiting the promises again.
  #verifiedValue: VerifiedToken | undefined
  #recordValue: TokenRecord<User> | null | undefined
  /** What a synchronous verification threw, thrown again to later callers (logged once). */
  #verifyFailure: unknown

  constructor(name: string, ctx: HttpContext, deps: JwtGuardDependencies<User>) {
    super(name, ctx, deps)
    this.#deps = deps
  }

  /** The request's verified token; throws TokenMissingError or TokenInvalidError. Runs once. */
  verifyRequest(): Promise<VerifiedToken> {
    try {
      const verified = this.verifyRequestNow()
      return verified instanceof Promise ? verified : Promise.resolve(verified)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * `verifyRequest` without a promise when nothing needs to wait (a JWT with `authenticates:
   * false`: no query); it then throws its TokenMissingError or TokenInvalidError synchronously.
   */
  verifyRequestNow(): VerifiedToken | Promise<VerifiedToken> {
    if (this.#verifiedValue !== undefined) return this.#verifiedValue
    if (this.#verified !== undefined) return this.#verified
    if (this.#verifyFailure !== undefined) throw this.#verifyFailure
    let verified: VerifiedToken | Promise<VerifiedToken>
    try {
      verified = this.#verifyRequest()
    } catch (error) {
      this.#verifyFailure = error
      throw error
    }
    if (verified instanceof Promise) this.#verified = verified
    return verified
  }

  /** The user the token names (`sub`), whether or not the token is still its current one. */
  subject(): Promise<User> {
    try {
      const user = this.subjectNow()
      return user instanceof Promise ? user : Promise.resolve(user)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /** `subject` without a promise when the token and the user's row are at hand. */
  subjectNow(): User | Promise<User> {
    const verified = this.verifyRequestNow()
    if (verified instanceof Promise) return verified.then(() => this.subjectNow())
    if (this.#recordValue === undefined) {
      const record = this.#recordOf(verified.payload.sub)
      if (record instanceof Promise) return record.then(() => this.subjectNow())
    }
    const record = this.#recordValue
    if (!record) throw this.#rejected(new TokenInvalidError())
    return record.user()
  }

  protected async resolve(): Promise<User> {
    const verified = this.#verifiedValue ?? (await this.verifyRequest())
    const record = this.#recordValue !== undefined ? this.#recordValue : await this.#recordOf(verified.payload.sub)
    // A personal access token was found in its table: its owner is the user (no token column involved).
    if (verified.personal) {
      if (!record) throw new TokenInvalidError()
      return record.user()
    }
    // `store: 'table'`: the token must be its family's current one (the token column is unused).
    const families = this.#deps.jwt.families
    if (families) {
      // With `authenticates: true` verifyRequest has just checked it (#checkFamily).
      if (!record || (!this.#deps.jwt.authenticates && !(await families.isCurrent(verified.payload.sub, verified.payload.fid, verified.digest)))) throw new TokenInvalidError({ cause: new JwtRevokedError() })
      return record.user()
    }
    if (!record || !timingSafeEqualString(record.digest, verified.digest)) throw new TokenInvalidError({ cause: new JwtRevokedError() })
    return record.user()
  }

  protected override unauthenticated(): TokenMissingError | TokenInvalidError {
    return bearerToken(this.ctx.request) === undefined ? new TokenMissingError() : new TokenInvalidError()
  }

  /**
   * Issues a token for `user` (replacing its current one) carrying `amr` (default `['pwd']`); it
   * is left in `guard.token`. The login flow calls it (auth/login).
   */
  async login(user: User, amr?: readonly string[]): Promise<void> {
    this.token = await this.#deps.jwt.issue(user, { userAgent: this.ctx.request.header('user-agent') ?? null, ip: this.ctx.request.ip() }, amr)
    this.setUser(user)
    this.#deps.events.emit('auth:token_issued', eventBase(this.ctx, this.name, user))
  }

  /** Clears the current token of the request's user: it can no longer be used or reissued. */
  async logout(): Promise<void> {
    const personal = this.#verifiedValue?.personal
    if (personal) return this.#logoutPersonal(personal)
    // `store: 'table'`: the presented token's family ends (the user's other devices stay).
    const families = this.#deps.jwt.families
    const verified = this.#verifiedValue
    if (families && verified) {
      const userId = await families.endByToken(verified.token, verified.payload)
      this.setUser(null)
      if (userId !== null) this.#deps.events.emit('auth:token_revoked', { ...eventBase(this.ctx, this.name, null), userId })
      return
    }
    const user = this.user ?? ((await this.check()) ? this.user : null)
    if (user) await this.#deps.jwt.revoke(user)
    this.setUser(null)
    if (user) this.#deps.events.emit('auth:token_revoked', eventBase(this.ctx, this.name, user))
  }

  /** Revokes `token` if it is its user's current one (RFC 7009: the caller's answer never says). */
  async revokeToken(token: string): Promise<void> {
    if (looksPersonal(token)) {
      const revoked = await this.#deps.personal?.revokeByValue(token)
      if (revoked) this.#deps.events.emit('auth:token_revoked', { ...eventBase(this.ctx, this.name, null), userId: revoked.userId, ...personalEventDetail(revoked) })
      return
    }
    const userId = await this.#deps.jwt.revokeToken(token)
    if (userId !== null) this.#deps.events.emit('auth:token_revoked', { ...eventBase(this.ctx, this.name, null), userId })
  }

  /** Exchanges a (possibly expired) current token for a new one; throws ReauthFailedError. */
  async reissue(oldToken: unknown): Promise<string> {
    try {
      const { token, sub } = await this.#deps.jwt.reissue(oldToken, { userAgent: this.ctx.request.header('user-agent') ?? null, ip: this.ctx.request.ip() })
      this.#deps.events.emit('auth:token_reissued', { ...eventBase(this.ctx, this.name, null), userId: sub })
      return token
    } catch (error) {
      if (!(error instanceof JwtError)) throw error
      if (error.code === 'E_JWT_REUSED') {
        // A replaced token after the reuse window: its family is revoked (by this request or one racing it).
        const detail = error.cause as ReuseDetail
        if (detail.detected) this.#deps.events.emit('auth:token_reuse_detected', { ...eventBase(this.ctx, this.name, null), userId: detail.userId, familyId: detail.familyId })
        throw new TokenReusedError({ cause: error })
      }
      this.ctx.app.log.info('auth.reauth_failed', { guard: this.name, code: error.code, ip: this.ctx.request.ip(), request_id: this.ctx.request.id })
      throw new ReauthFailedError({ cause: error })
    }
  }

  #verifyRequest(): VerifiedToken | Promise<VerifiedToken> {
    const token = bearerToken(this.ctx.request)
    if (token === undefined) throw this.#rejected(new TokenMissingError())
    if (token === null) throw this.#rejected(new TokenInvalidError())
    if (looksPersonal(token)) return this.#verifyPersonal(token)
    let verified: VerifiedToken
    try {
      verified = new VerifiedBearer(token, this.#deps.jwt.verify(token))
    } catch (error) {
      throw error instanceof JwtError ? this.#rejected(new TokenInvalidError({ cause: error })) : error
    }
    return this.#deps.jwt.authenticates ? this.#checkCurrent(verified) : this.#accept(verified)
  }

  /**
   * `authenticates: true`: the token must also be its user's current one (the row read here is
   * the one `subject()` uses), or with `store: 'table'` its family's.
   */
  #checkCurrent(verified: VerifiedToken): VerifiedToken | Promise<VerifiedToken> {
    if (this.#deps.jwt.families) return this.#checkFamily(verified)
    const record = this.#recordOf(verified.payload.sub)
    return record instanceof Promise ? record.then((found) => this.#checkDigest(verified, found)) : this.#checkDigest(verified, record)
  }

  #checkDigest(verified: VerifiedToken, record: TokenRecord<User> | null): VerifiedToken {
    if (!record || !timingSafeEqualString(record.digest, verified.digest)) throw this.#rejected(new TokenInvalidError({ cause: new JwtRevokedError() }))
    return this.#accept(verified)
  }

  /**
   * `store: 'table'`: the token must be its family's current one (one look-up by its digest,
   * without a promise when the row is at hand).
   */
  #checkFamily(verified: VerifiedToken): VerifiedToken | Promise<VerifiedToken> {
    const families = this.#deps.jwt.families!
    const provider = this.#deps.provider
    const source = provider.rowSource
    // On SQLite: the family's row and the user's in one statement (LoadUser then reads nothing).
    if (source && provider.recordFromRow && this.#recordValue === undefined && source.connection === families.connection) {
      const joined = families.currentWithUserNow(verified.payload.sub, verified.payload.fid, verified.digest, source)
      if (joined !== UNAVAILABLE) {
        if (joined.current && joined.user) this.#recordValue = provider.recordFromRow(joined.user)
        return this.#familyChecked(verified, joined.current && joined.user !== undefined)
      }
    }
    const current = families.isCurrentNow(verified.payload.sub, verified.payload.fid, verified.digest)
    return current instanceof Promise ? current.then((yes) => this.#familyChecked(verified, yes)) : this.#familyChecked(verified, current)
  }

  #familyChecked(verified: VerifiedToken, current: boolean): VerifiedToken {
    if (!current) throw this.#rejected(new TokenInvalidError({ cause: new JwtRevokedError() }))
    return this.#accept(verified)
  }

  #accept(verified: VerifiedToken): VerifiedToken {
    this.ctx.state.jwt = this.#verifiedValue = verified
    // A JWT from the token route carries every ability (`ability:` middleware).
    this.ctx.state.abilities = JWT_ABILITIES
    return verified
  }

  /**
   * A `trw_...` Bearer value: format and checksum (no query when wrong), one look-up by its hash;
   * unknown, revoked or expired: 401 `E_TOKEN_INVALID`. Its abilities go to `ctx.state.abilities`
   * and `last_used_at` moves on (at most once a minute per token).
   */
  async #verifyPersonal(token: string): Promise<VerifiedToken> {
    const repository = this.#deps.personal
    if (!repository) throw this.#rejected(new TokenInvalidError())
    const result = await repository.authenticate(token)
    if (!result.token) throw this.#rejected(new TokenInvalidError({ cause: new JwtRevokedError() }))
    const personal = result.token
    const verified = new PersonalBearer(token, personal)
    this.#verifiedValue = verified
    this.ctx.state.personalToken = personal
    this.ctx.state.abilities = personal.abilities
    try {
      await repository.touch(personal)
    } catch (error) {
      // Bookkeeping only: a failed write never fails the request.
      this.ctx.app.log.warn('api.personal_token_touch_failed', { error: error instanceof Error ? error.message : String(error), request_id: this.ctx.request.id })
    }
    return verified
  }

  /** POST /api/logout with a personal access token: that token is deleted. */
  async #logoutPersonal(personal: PersonalToken): Promise<void> {
    const user = this.user ?? ((await this.check()) ? this.user : null)
    const revoked = await this.#deps.personal?.revoke(personal.userId, personal.id)
    this.setUser(null)
    if (revoked) this.#deps.events.emit('auth:token_revoked', { ...eventBase(this.ctx, this.name, user), userId: revoked.userId, ...personalEventDetail(revoked) })
  }

  /** The token subject's record, read once per request; synchronous when the provider can answer so. */
  #recordOf(sub: string): TokenRecord<User> | null | Promise<TokenRecord<User> | null> {
    if (this.#recordValue !== undefined) return this.#recordValue
    if (this.#record === undefined) {
      const provider = this.#deps.provider
      const found = provider.findRecordNow ? provider.findRecordNow(sub) : provider.findRecord(sub)
      if (!(found instanceof Promise)) return (this.#recordValue = found)
      this.#record = found.then((record) => (this.#recordValue = record))
    }
    return this.#record
  }

  /** Logs a refused token (code, IP, route pattern; never the token) and returns the error. */
  #rejected<E extends TokenMissingError | TokenInvalidError>(error: E): E {
    this.ctx.app.log.info('auth.token_rejected', { code: error.code, ip: this.ctx.request.ip(), request_id: this.ctx.request.id, path: this.ctx.route?.path })
    return error
  }
}

declare module '../../../http/context.js' {
  interface RequestState {
    /** The request's verified Bearer token, once the JWT guard has verified it. */
    jwt?: VerifiedToken
    /** The personal access token of the request, when its Bearer value was one. */
    personalToken?: PersonalToken
    /** What the request's Bearer token may do: `['*']` for a JWT, the token's list for a personal one. */
    abilities?: readonly string[]
  }
}
