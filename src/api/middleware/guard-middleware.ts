/**
 * @module api/middleware/guard-middleware
 * `'guard:<name>'` (e.g. `guard:jwt`): makes `<name>` this request's default guard and loads its
 * user, so `auth.user()` is the user whose token column holds the presented token's digest
 * (null when none does; the route still runs). For this request only.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'

export class GuardMiddleware extends Middleware {
  async before(ctx: HttpContext, name = 'jwt'): Promise<void> {
    ctx.auth.use(name)
    await ctx.auth.check()
  }
}
