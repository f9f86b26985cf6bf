/**
 * @module auth/middleware/initialize-auth-middleware
 * In the `web` stack: loads the logged-in user from the login cookie once per request, so
 * `ctx.auth.user()` (and `auth_user` in templates) is known on every web page.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'

export class InitializeAuthMiddleware extends Middleware {
  async before(ctx: HttpContext): Promise<void> {
    await ctx.auth.check()
  }
}
