/**
 * @module auth/middleware/password-confirm-middleware
 * `password.confirm`: lets through a user who typed their password (at login or on
 * `/confirm-password`) within the last `GUARDS.web.password_timeout` minutes (default 15).
 * Otherwise pages get a 302 to `/confirm-password`, which sends them back afterwards (the page
 * itself for a GET, else the page the form was on), and JSON gets 423
 * `E_PASSWORD_CONFIRMATION_REQUIRED`. Put it after `auth`.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { refererPath, sameSitePath } from '../../http/response.js'
import { PasswordConfirmationRequiredError, UnauthorizedError } from '../errors.js'

/** Session key: when the user last typed their password (epoch ms). */
export const PASSWORD_CONFIRMED_AT = 'auth.password_confirmed_at'
/** Session key: where `/confirm-password` sends the user once confirmed. */
export const CONFIRM_INTENDED = 'auth.confirm_intended'

/** Whether the session's password confirmation is younger than `timeoutMinutes`. */
export function passwordRecentlyConfirmed(ctx: HttpContext, timeoutMinutes: number): boolean {
  if (!ctx.hasSession) return false
  const at = ctx.session.get<unknown>(PASSWORD_CONFIRMED_AT)
  return typeof at === 'number' && Date.now() - at >= 0 && Date.now() - at < timeoutMinutes * 60_000
}

/** Records that the user has just typed their password. */
export function markPasswordConfirmed(ctx: HttpContext): void {
  if (ctx.hasSession) ctx.session.put(PASSWORD_CONFIRMED_AT, Date.now())
}

export class PasswordConfirmMiddleware extends Middleware {
  async before(ctx: HttpContext): Promise<unknown> {
    const json = ctx.route?.json || ctx.request.wantsJson()
    if (!(await ctx.auth.check())) {
      if (json) throw new UnauthorizedError()
      return ctx.response.redirect('/login')
    }
    if (passwordRecentlyConfirmed(ctx, ctx.auth.manager.resolved.passwordTimeout)) return undefined
    if (json || !ctx.hasSession) throw new PasswordConfirmationRequiredError()
    const { request } = ctx
    const intended = request.method === 'GET' ? sameSitePath(request.url) : refererPath(request.header('referer'))
    // No usable target (a cross-site or missing Referer): the confirmation page picks its default.
    if (intended) ctx.session.put(CONFIRM_INTENDED, intended)
    else ctx.session.forget(CONFIRM_INTENDED)
    return ctx.response.redirect('/confirm-password')
  }
}
