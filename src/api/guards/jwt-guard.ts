/**
 * @module api/guards/jwt-guard
 * The `jwt` guard: `auth.guard('jwt')`. Its user is the one whose token column holds the digest
 * of the presented Bearer token. `attempt` checks credentials (throttled with the web login's
 * budget) and issues a token; `logout` clears the user's token column.
 */
import type { HttpContext } from '../../http/context.js'
import type { CredentialVerifier } from '../../auth/credential-verifier.js'
import { BaseGuard } from '../../auth/guards/base-guard.js'
import type { JwtService, VerifiedToken } from '../jwt-service.js'
import { bearerToken } from '../middleware/bearer-token.js'
import { TokenInvalidError } from '../errors.js'

export class JwtGuard extends BaseGuard {
  readonly #jwt: JwtService
  /** The token issued by the last attempt/login on this guard, for this request. */
  token: string | null = null

  constructor(name: string, ctx: HttpContext, jwt: JwtService, verifier: CredentialVerifier) {
    super(name, ctx, jwt.model, verifier, 'api')
    this.#jwt = jwt
  }

  async check(): Promise<any | null> {
    if (this.current !== undefined) return this.current
    this.current = null
    let verified = this.ctx.state.jwt as VerifiedToken | undefined
    if (!verified) {
      const token = bearerToken(this.ctx.request)
      if (!token) return null
      try {
        verified = await this.#jwt.authenticate(token)
      } catch (error) {
        if (error instanceof TokenInvalidError) return null
        throw error
      }
    }
    this.current = await this.#jwt.findByDigest(verified.digest)
    return this.current
  }

  async login(user: any): Promise<void> {
    this.token = await this.#jwt.issue(user)
    this.current = user
    this.ctx.app.log.info('auth.token_issued', { guard: this.name, user_id: user.getKey(), ip: this.ctx.request.ip() })
  }

  async logout(): Promise<void> {
    const user = await this.check()
    if (user) await this.#jwt.model.query().where(this.#jwt.primaryKey, user.getKey()).update({ [this.#jwt.column]: null })
    this.current = null
  }
}
