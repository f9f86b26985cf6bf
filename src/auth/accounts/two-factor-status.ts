/**
 * @module auth/accounts/two-factor-status
 * Whether a user has TOTP turned on, for the badges and next steps of the account and home pages.
 */
import type { HttpContext } from '../../http/context.js'

/** True when the `two_factor` feature is on and `user` has confirmed a TOTP enrolment. */
export async function twoFactorOn(ctx: HttpContext, user: { getKey(): unknown }): Promise<boolean> {
  if (!ctx.auth.manager.resolved.features.has('two_factor') || !ctx.app.has('auth.two_factor')) return false
  return ctx.app.make('auth.two_factor').isEnabled(user.getKey())
}
