/**
 * @module auth/middleware/authentication-middleware
 * The `auth` stack: lets logged-in users through; others are redirected to `/login` (HTML, with
 * the page they wanted kept as `next` when it is a GET) or get 401 `E_UNAUTHORIZED` (JSON).
 * `'auth:jwt'` checks another guard.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { UnauthorizedError } from '../errors.js'
import { assertGuard } from './assert-guard.js'

export class AuthenticationMiddleware extends Middleware {
  async before(ctx: HttpContext, guard?: string): Promise<unknown> {
    const auth = guard ? ctx.auth.guard(guard) : ctx.auth
    if (await auth.check()) return undefined
    if (ctx.route?.json || ctx.request.wantsJson()) throw new UnauthorizedError()
    const target = ctx.request.method === 'GET' && ctx.request.path !== '/home' ? `/login?next=${encodeURIComponent(ctx.request.url)}` : '/login'
    return ctx.response.redirect(target)
  }

  override validate(where: string, guard?: string): void {
    assertGuard(this.app, where, guard)
  }
}
