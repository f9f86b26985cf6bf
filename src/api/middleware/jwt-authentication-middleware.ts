/**
 * @module api/middleware/jwt-authentication-middleware
 * The `api` stack's gate: every route in it needs `Authorization: Bearer <JWT>`. No token:
 * 401 `E_TOKEN_MISSING`; invalid, expired, wrong version or (with `authenticates`) replaced:
 * 401 `E_TOKEN_INVALID`; both with `WWW-Authenticate: Bearer`. The JWT guard does the work and
 * keeps the result for the rest of the request; with nothing to wait for (no query), this
 * middleware returns without a promise.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { jwtGuardOf } from '../guards/jwt/jwt-guard-of.js'

export class JWTAuthenticationMiddleware extends Middleware {
  before(ctx: HttpContext): undefined | Promise<undefined> {
    const verified = jwtGuardOf(ctx).verifyRequestNow()
    return verified instanceof Promise ? verified.then(() => undefined) : undefined
  }
}
