/**
 * @module auth/organizations/org-middleware
 * `org`: the route needs a current organisation. It is the route's `@organization` (a slug), else
 * the `X-Organization: <slug>` header, else the session's (switched on `/organizations`); the
 * membership is read on this request (one indexed look-up), so a role change or removal applies
 * to the member's next request, web or API. An organisation the user is not in is 404; none at all
 * is 403 `E_FORBIDDEN` (JSON) or a 302 to `/organizations` (pages). Sets `ctx.organization` and
 * `ctx.membership`. A visitor who is not logged in gets 401 (JSON) or a 302 to `/login`.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { ForbiddenError } from '../../http/errors.js'
import { UnauthorizedError } from '../errors.js'
import type { AuthUser } from '../types.js'
import { organizations } from './install.js'

function wantsJson(ctx: HttpContext): boolean {
  return Boolean(ctx.route?.json) || ctx.request.wantsJson() || !ctx.hasSession
}

export class OrgMiddleware extends Middleware {
  async before(ctx: HttpContext): Promise<unknown> {
    if (!(await ctx.auth.check())) {
      if (wantsJson(ctx)) throw new UnauthorizedError()
      return ctx.response.redirect(`/login?next=${encodeURIComponent(ctx.request.path)}`)
    }
    const current = await organizations(ctx).current(ctx, ctx.auth.user<AuthUser>()!)
    if (current) return undefined
    if (wantsJson(ctx)) throw new ForbiddenError('Choose an organisation first (X-Organization: <slug>).')
    ctx.session.flash('error', 'Choose an organisation first.')
    return ctx.response.redirect('/organizations')
  }
}
