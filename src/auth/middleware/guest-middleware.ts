/**
 * @module auth/middleware/guest-middleware
 * The `guest` stack: pages only for visitors who are not logged in; others go to `/home`.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'

export class GuestMiddleware extends Middleware {
  async before(ctx: HttpContext): Promise<unknown> {
    return (await ctx.auth.check()) ? ctx.response.redirect('/home') : undefined
  }
}
