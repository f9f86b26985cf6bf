/**
 * @module auth/accounts/first-password
 * Setting a first password (`POST /account/password` without `current_password`) for a user who
 * has none — an account made by a provider, a passkey or a mailed link. There is no password to
 * type, so it needs what stands in for one: a confirmation within `password_timeout` (a passkey or
 * a fresh round trip to a linked provider, on `/confirm-password`) and, for a user with a second
 * factor, a recent one (the step-up).
 */
import type { HttpContext } from '../../http/context.js'
import { PasswordConfirmationRequiredError } from '../errors.js'
import { CONFIRM_INTENDED, passwordRecentlyConfirmed } from '../middleware/password-confirm-middleware.js'
import { requireRecentSecondFactor } from '../middleware/mfa-recent-middleware.js'
import type { AuthUser } from '../types.js'

/** The stored password hash of `user` (the model's `passwordColumn`, default `password`), or null. */
export function passwordHashOf(ctx: HttpContext, user: AuthUser): string | null {
  const column: string = ctx.auth.manager.model?.passwordColumn ?? 'password'
  const value = (user as unknown as Record<string, unknown>)[column]
  return typeof value === 'string' ? value : null
}

/** Whether `user` has a stored password. */
export function hasPassword(ctx: HttpContext, user: AuthUser): boolean {
  const column = ctx.auth.manager.model?.passwordColumn ?? 'password'
  const stored = (user as unknown as Record<string, unknown>)[column]
  return typeof stored === 'string' && stored !== ''
}

/** Undefined when a first password may be set now; else the answer that asks for what is missing. */
export async function firstPasswordGate(ctx: HttpContext): Promise<unknown> {
  if (!passwordRecentlyConfirmed(ctx, ctx.auth.manager.resolved.passwordTimeout)) {
    if (ctx.request.wantsJson() || !ctx.hasSession) throw new PasswordConfirmationRequiredError()
    ctx.session.put(CONFIRM_INTENDED, '/account')
    return ctx.response.redirect('/confirm-password')
  }
  return requireRecentSecondFactor(ctx)
}
