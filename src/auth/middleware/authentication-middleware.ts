/**
 * @module auth/middleware/authentication-middleware
 * The `auth` stack: lets logged-in users through; others are redirected to `/login` (HTML, with
 * the page they wanted kept as `next` when it is a GET) or get 401 `E_UNAUTHORIZED` (JSON).
 * `'auth:jwt'` checks another guard.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { UnauthorizedError } from '../errors.js'
import { BaseGuard } from '../guards/base-guard.js'
import { assertGuard } from './assert-guard.js'

export class AuthenticationMiddleware extends Middleware {
  before(ctx: HttpContext, guard?: string): unknown {
    const auth = guard ? ctx.auth.guard(guard) : ctx.auth
    const resolved = auth.resolve()
    // Without a promise when the guard knows the answer already (the `web` stack checked it).
    const checked = resolved instanceof BaseGuard ? resolved.checkNow() : resolved.check()
    if (checked === true) return undefined
    if (checked === false) return refuse(ctx)
    return checked.then((ok) => (ok ? undefined : refuse(ctx)))
  }

  override validate(where: string, guard?: string): void {
    assertGuard(this.app, where, guard)
  }
}

/** A guest: 401 for JSON, else a redirect to the login page (keeping a GET's page as `next`). */
function refuse(ctx: HttpContext): unknown {
  if (ctx.route?.json || ctx.request.wantsJson()) throw new UnauthorizedError()
  const target = ctx.request.method === 'GET' && ctx.request.path !== '/home' ? `/login?next=${encodeURIComponent(ctx.request.url)}` : '/login'
  return ctx.response.redirect(target)
}
