/**
 * @module api/middleware/load-user-middleware
 * After JWTAuthenticationMiddleware in the `api` stack: `request.user()` becomes the user named
 * by the token's `sub`. A token whose user no longer exists is refused (401 `E_TOKEN_INVALID`).
 * Without a promise when the user's row is at hand (SQLite's kept statement).
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { jwtGuardOf } from '../guards/jwt/jwt-guard-of.js'

export class LoadUserMiddleware extends Middleware {
  before(ctx: HttpContext): undefined | Promise<undefined> {
    const user = jwtGuardOf(ctx).subjectNow()
    if (!(user instanceof Promise)) {
      ctx.request.setUser(user)
      return undefined
    }
    return user.then((found) => {
      ctx.request.setUser(found)
      return undefined
    })
  }
}
