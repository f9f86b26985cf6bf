/**
 * @module api/middleware/guard-middleware
 * `'guard:<name>'` (e.g. `guard:jwt`): makes `<name>` this request's default guard and checks
 * it, so `auth.user()` is the user whose current token was presented (null when it is not, e.g.
 * a token already replaced by a reissue; the route still runs). For this request only.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { assertGuard } from '../../auth/middleware/assert-guard.js'

export class GuardMiddleware extends Middleware {
  async before(ctx: HttpContext, name = 'jwt'): Promise<void> {
    await ctx.auth.use(name).check()
  }

  override validate(where: string, name = 'jwt'): void {
    assertGuard(this.app, where, name)
  }
}
