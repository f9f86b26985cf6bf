/**
 * @module api/middleware/load-user-middleware
 * After JWTAuthenticationMiddleware in the `api` stack: `request.user()` becomes the user named
 * by the token's `sub`. A token whose user no longer exists is refused (401 `E_TOKEN_INVALID`).
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { TokenInvalidError, TokenMissingError } from '../errors.js'
import type { JwtService, VerifiedToken } from '../jwt-service.js'
import { bearerToken } from './bearer-token.js'

export class LoadUserMiddleware extends Middleware {
  #jwt?: JwtService

  async before(ctx: HttpContext): Promise<void> {
    const jwt = (this.#jwt ??= this.app.make<JwtService>('api.jwt'))
    let verified = ctx.state.jwt as VerifiedToken | undefined
    if (!verified) {
      const token = bearerToken(ctx.request)
      if (token === undefined) throw new TokenMissingError()
      if (token === null) throw new TokenInvalidError()
      verified = await jwt.authenticate(token)
      ctx.state.jwt = verified
    }
    const user = await jwt.userFor(verified)
    if (!user) throw new TokenInvalidError()
    ctx.request.setUser(user)
  }
}
