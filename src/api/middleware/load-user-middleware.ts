/**
 * @module api/middleware/load-user-middleware
 * After JWTAuthenticationMiddleware in the `api` stack: `request.user()` becomes the user named
 * by the token's `sub`. A token whose user no longer exists is refused (401 `E_TOKEN_INVALID`).
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import type { JwtGuard } from '../guards/jwt/guard.js'

export class LoadUserMiddleware extends Middleware {
  async before(ctx: HttpContext): Promise<void> {
    ctx.request.setUser(await ctx.auth.resolve<JwtGuard>('jwt').subject())
  }
}
