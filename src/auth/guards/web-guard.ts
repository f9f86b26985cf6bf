/**
 * @module auth/guards/web-guard
 * The `web` guard's cookie driver. The cookie (`trowel_auth`, signed with APP_KEY, HttpOnly,
 * SameSite=Lax, Secure over HTTPS, no Max-Age) holds an opaque random token; the database holds
 * only its SHA-256, one row per device. Login regenerates the session (new id, new CSRF token);
 * logout deletes this device's row, clears the cookie and invalidates the session, so a replayed
 * old cookie is logged out.
 */
import type { HttpContext } from '../../http/context.js'
import type { LoginTokenRepository } from '../login-token-repository.js'
import type { CredentialVerifier } from '../credential-verifier.js'
import { BaseGuard } from './base-guard.js'

export const AUTH_COOKIE = 'trowel_auth'

export interface WebGuardOptions {
  model: any
  tokens: LoginTokenRepository
  verifier: CredentialVerifier
}

export class WebGuard extends BaseGuard {
  readonly #tokens: LoginTokenRepository

  constructor(name: string, ctx: HttpContext, options: WebGuardOptions) {
    super(name, ctx, options.model, options.verifier, 'web')
    this.#tokens = options.tokens
  }

  async check(): Promise<any | null> {
    if (this.current !== undefined) return this.current
    this.current = null
    const token = this.ctx.request.cookie(AUTH_COOKIE)
    if (!token) return null
    const userId = await this.#tokens.findUserId(token)
    if (userId === null || userId === undefined) {
      this.ctx.response.clearCookie(AUTH_COOKIE)
      return null
    }
    this.current = await this.model.find(userId)
    return this.current
  }

  async login(user: any): Promise<void> {
    const previous = this.ctx.request.cookie(AUTH_COOKIE)
    if (previous) await this.#tokens.revoke(previous)
    const token = await this.#tokens.create(user.getKey(), {
      ip: this.ctx.request.ip(),
      userAgent: this.ctx.request.header('user-agent'),
    })
    this.ctx.response.cookie(AUTH_COOKIE, token)
    if (this.ctx.hasSession) await this.ctx.session.regenerate()
    this.current = user
    this.ctx.app.log.info('auth.login', { guard: this.name, user_id: user.getKey(), ip: this.ctx.request.ip() })
  }

  async logout(): Promise<void> {
    const token = this.ctx.request.cookie(AUTH_COOKIE)
    if (token) await this.#tokens.revoke(token)
    this.ctx.response.clearCookie(AUTH_COOKIE)
    if (this.ctx.hasSession) await this.ctx.session.invalidate()
    if (this.current) this.ctx.app.log.info('auth.logout', { guard: this.name, user_id: this.current.getKey(), ip: this.ctx.request.ip() })
    this.current = null
  }
}
