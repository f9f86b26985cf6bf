/**
 * @module api/middleware/jwt-authentication-middleware
 * The `api` stack's guard: every route in it needs `Authorization: Bearer <JWT>`. No token:
 * 401 `E_TOKEN_MISSING`; invalid, expired, wrong version or (with `authenticates`) replaced:
 * 401 `E_TOKEN_INVALID`; both with `WWW-Authenticate: Bearer`. The verified token is kept in
 * `ctx.state.jwt` for LoadUserMiddleware and GuardMiddleware.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { TokenInvalidError, TokenMissingError } from '../errors.js'
import type { JwtService } from '../jwt-service.js'
import { bearerToken } from './bearer-token.js'

export class JWTAuthenticationMiddleware extends Middleware {
  #jwt?: JwtService

  async before(ctx: HttpContext): Promise<void> {
    const token = bearerToken(ctx.request)
    if (token === undefined) throw rejected(ctx, new TokenMissingError())
    if (token === null) throw rejected(ctx, new TokenInvalidError())
    this.#jwt ??= this.app.make<JwtService>('api.jwt')
    try {
      ctx.state.jwt = await this.#jwt.authenticate(token)
    } catch (error) {
      throw error instanceof TokenInvalidError ? rejected(ctx, error) : error
    }
  }
}

/** Logs a refused request (time, IP, code; never the token) and returns the error to throw. */
function rejected<E extends TokenMissingError | TokenInvalidError>(ctx: HttpContext, error: E): E {
  ctx.app.log.info('auth.token_rejected', { code: error.code, ip: ctx.request.ip(), path: ctx.route?.path })
  return error
}
