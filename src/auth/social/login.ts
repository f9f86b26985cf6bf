/**
 * @module auth/social/login
 * The one place social login finishes a web login: the second-factor challenge (a TOTP or passkey
 * user goes to `/two-factor-challenge`; the pending login keeps amr `["social"]`, so its second
 * step records `["social", "otp"]`), else the web guard's login (new session id and CSRF token,
 * device cookie), amr `["social"]`, no password confirmation, and `auth:login_succeeded` with
 * `method: 'social'` and the provider. Swapped for the shared login flow when it lands.
 */
import type { HttpContext } from '../../http/context.js'
import { eventBase } from '../events.js'
import { knownDeviceOf } from '../guards/web/guard.js'
import { PASSWORD_CONFIRMED_AT } from '../middleware/password-confirm-middleware.js'
import { setSessionAmr } from '../two-factor/amr.js'
import { SecondFactorRequiredError } from '../two-factor/errors.js'
import { PENDING_LOGIN_KEY } from '../two-factor/pending-login.js'
import type { AuthUser } from '../types.js'

export const SOCIAL_AMR: readonly string[] = ['social']
export const SOCIAL_OTP_AMR: readonly string[] = ['social', 'otp']

export interface SocialLoginAttempt {
  user: AuthUser
  next: string | null
  details: { provider: string }
}

/** Logs `attempt.user` in on the web guard: where to go next. */
export async function finishSocialLogin(ctx: HttpContext, attempt: SocialLoginAttempt): Promise<{ status: 'logged_in'; redirect: string } | { status: 'challenge'; redirect: '/two-factor-challenge' }> {
  const manager = ctx.auth.manager
  const { user } = attempt
  delete ctx.state.loginAmr
  try {
    await manager.challenge(ctx, ctx.auth.guardName, user)
  } catch (error) {
    if (!(error instanceof SecondFactorRequiredError) || !ctx.hasSession) throw error
    const pending = ctx.session.get<Record<string, unknown>>(PENDING_LOGIN_KEY)
    if (pending && typeof pending === 'object') ctx.session.put(PENDING_LOGIN_KEY, { ...pending, amr: [...SOCIAL_AMR], next: attempt.next })
    return { status: 'challenge', redirect: '/two-factor-challenge' }
  }
  const amr = ctx.state.loginAmr ? SOCIAL_OTP_AMR : SOCIAL_AMR
  const knownDevice = (await knownDeviceOf(ctx, manager.deviceRevocations, user.getKey())) !== null
  await ctx.auth.resolve().login(user)
  // A provider round trip is not a typed password: `password.confirm` still asks for one.
  if (ctx.hasSession) ctx.session.forget(PASSWORD_CONFIRMED_AT)
  setSessionAmr(ctx, [...amr])
  manager.events.emit('auth:login_succeeded', { ...eventBase(ctx, ctx.auth.guardName, user), knownDevice, method: 'social', provider: attempt.details.provider } as never)
  return { status: 'logged_in', redirect: attempt.next ?? '/home' }
}
