/**
 * @module auth/middleware/verified-middleware
 * `verified`: lets through users whose address is verified (`email_verified_at` set). Anyone else
 * gets a 302 to `/email/verify` (pages) or 403 `E_EMAIL_NOT_VERIFIED` (JSON). Put it after
 * `auth`; a visitor who is not logged in is sent to log in first.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { EmailNotVerifiedError, UnauthorizedError } from '../errors.js'
import { assertGuard } from './assert-guard.js'
import { isVerified } from '../accounts/verification.js'

/**
 * For the actions that add a way in (TOTP enrolment, a passkey, a personal access token): with
 * the `email_verification` feature on, an unverified `user` gets a 302 to `/email/verify` (pages)
 * or 403 `E_EMAIL_NOT_VERIFIED` (JSON), whatever middleware ran before; undefined to go on. An
 * address nobody proved could belong to a future owner, whom such a way in would outlive.
 */
export function refuseUnverified(ctx: HttpContext, user: unknown): unknown {
  if (!ctx.auth.manager.resolved.features.has('email_verification') || isVerified(user)) return undefined
  if (ctx.route?.json || ctx.request.wantsJson() || ctx.request.isJson() || !ctx.hasSession) throw new EmailNotVerifiedError()
  return ctx.response.redirect('/email/verify')
}

export class VerifiedMiddleware extends Middleware {
  async before(ctx: HttpContext, guard?: string): Promise<unknown> {
    const auth = guard ? ctx.auth.guard(guard) : ctx.auth
    const json = ctx.route?.json || ctx.request.wantsJson()
    if (!(await auth.check())) {
      if (json) throw new UnauthorizedError()
      return ctx.response.redirect('/login')
    }
    if (isVerified(auth.user())) return undefined
    if (json) throw new EmailNotVerifiedError()
    return ctx.response.redirect('/email/verify')
  }

  override validate(where: string, guard?: string): void {
    assertGuard(this.app, where, guard)
  }
}
