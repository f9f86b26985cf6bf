/**
 * @module auth/middleware/password-confirm-middleware
 * `password.confirm`: lets through a user who typed their password (at login or on
 * `/confirm-password`) within the last `GUARDS.web.password_timeout` minutes (default 15).
 * Otherwise pages get a 302 to `/confirm-password`, which sends them back afterwards (the page
 * itself for a GET, else the page the form was on) with the form's input kept (passwords,
 * secrets, tokens and codes left out), and JSON gets 423 `E_PASSWORD_CONFIRMATION_REQUIRED`. Put it after `auth`.
 * A registration counts as a password typed now (AuthForms.register marks it).
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { refererPath, sameSitePath } from '../../http/response.js'
import { PasswordConfirmationRequiredError, UnauthorizedError } from '../errors.js'

/** Session key: when the user last typed their password (epoch ms). */
export const PASSWORD_CONFIRMED_AT = 'auth.password_confirmed_at'
/** Session key: where `/confirm-password` sends the user once confirmed. */
export const CONFIRM_INTENDED = 'auth.confirm_intended'
/** Session key: the input of the form `password.confirm` stopped, flashed back once confirmed. */
export const CONFIRM_INPUT = 'auth.confirm_input'
/** Kept input larger than this (as JSON) is dropped rather than risk the session's size. */
const CONFIRM_INPUT_MAX = 1024

/** Fields never kept: passwords, secrets, tokens (the CSRF one too) and one-time codes. */
const SECRET_FIELD = /password|secret|token|code|otp/i

/** The fields of `body` worth keeping: scalars and string lists, nothing secret. */
function keepableInput(body: Record<string, unknown>): Record<string, unknown> | null {
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) {
    if (SECRET_FIELD.test(key)) continue
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') kept[key] = value
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) kept[key] = [...value]
  }
  if (Object.keys(kept).length === 0 || JSON.stringify(kept).length > CONFIRM_INPUT_MAX) return null
  return kept
}

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
    // A form stopped here gets its fields back on its page once confirmed (e.g. a passkey's name).
    const input = request.method === 'GET' || !intended ? null : keepableInput(request.body as Record<string, unknown>)
    if (input) ctx.session.put(CONFIRM_INPUT, input)
    else ctx.session.forget(CONFIRM_INPUT)
    return ctx.response.redirect('/confirm-password')
  }
}
