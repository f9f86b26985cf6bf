/**
 * @module api/personal-tokens/verified-address
 * Creating a personal access token adds a way into the account, so with the `email_verification`
 * feature on it needs a verified address: otherwise a page gets a 302 to `/email/verify` and JSON
 * 403 `E_EMAIL_NOT_VERIFIED` (someone who registered a future victim's address cannot leave a
 * token behind for when the owner claims the account). With the feature off, every user passes.
 * The token routes put `VerifiedAddressMiddleware` first after `auth`, so an unverified user is
 * sent to verify before being asked for a password or a second factor; the create handler checks
 * again (`refuseUnverified`), so the rule holds whatever an app does to the middleware stacks.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { isVerified } from '../../auth/accounts/verification.js'
import { refuseUnverified } from '../../auth/middleware/verified-middleware.js'

/** Whether `user` must verify their address before adding a way in (the feature is on and it is not verified). */
export function needsVerification(ctx: HttpContext, user: unknown): boolean {
  return ctx.auth.manager.resolved.features.has('email_verification') && !isVerified(user)
}

/** Route middleware: an unverified user (with `email_verification` on) goes no further. Put it after `auth`. */
export class VerifiedAddressMiddleware extends Middleware {
  async before(ctx: HttpContext): Promise<unknown> {
    return refuseUnverified(ctx, await ctx.auth.authenticate())
  }
}
