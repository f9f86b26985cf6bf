/**
 * @module auth/social/login
 * A social login, handed to the one login flow: method `social`, amr `["social"]` (the flow adds
 * `"otp"` after a second step or on a trusted browser), the provider on `auth:login_succeeded`.
 * The flow runs the second-factor challenge, rotates the session, sets the device cookie and, as
 * for every method that typed no password, leaves `password.confirm` asking for one.
 */
import type { HttpContext } from '../../http/context.js'
import { finishApiLogin, finishWebLogin } from '../login/flow.js'
import type { TokenResponseBody, WebLoginOutcome } from '../login/types.js'
import type { AuthUser } from '../types.js'

export const SOCIAL_AMR: readonly string[] = ['social']

export interface SocialLoginAttempt {
  user: AuthUser
  next: string | null
  details: { provider: string }
}

/** Logs `attempt.user` in on the web guard: where to go next (home, `next`, or the challenge). */
export function finishSocialLogin(ctx: HttpContext, attempt: SocialLoginAttempt): Promise<WebLoginOutcome> {
  return finishWebLogin(ctx, { user: attempt.user, method: 'social', amr: SOCIAL_AMR, next: attempt.next, details: attempt.details })
}

/** The API: the token response, or 401 `E_MFA_REQUIRED` thrown for a user with a second factor. */
export function finishSocialApiLogin(ctx: HttpContext, user: AuthUser, provider: string): Promise<TokenResponseBody> {
  return finishApiLogin(ctx, { user, method: 'social', amr: SOCIAL_AMR, details: { provider } })
}
