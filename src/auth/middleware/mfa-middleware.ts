/**
 * @module auth/middleware/mfa-middleware
 * `mfa`: requires a login that used a second factor (a TOTP code, a recovery code or a passkey):
 * the session's amr on the web guard, the token's `amr` claim on a JWT guard (`mfa:jwt`, or after
 * `guard:jwt`). A personal access token carries no amr: it is treated as a login without a
 * second factor. Otherwise:
 * - a user with a factor (one of the features' `secondFactor`s: TOTP on, a passkey): a page gets a
 *   302 to the second step's page (the step-up, which comes back to the page afterwards), JSON
 *   403 `E_MFA_REQUIRED`;
 * - a user without one passes while the account is younger than `GUARDS.mfa.grace_days` (from
 *   `users.created_at`); after that a page gets a 302 to the enrolment page of the first feature
 *   on that offers a factor, JSON 403 `E_MFA_REQUIRED`.
 * Someone not logged in is sent to log in first (401 for JSON). Put it after `auth`.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { refererPath, sameSitePath } from '../../http/response.js'
import { UnauthorizedError } from '../errors.js'
import type { AuthUser } from '../types.js'
import { hasSecondFactor, MFA_INTENDED, sessionAmr } from '../login/amr.js'
import { MfaRequiredError } from '../login/errors.js'
import { assertGuard } from './assert-guard.js'

export { MFA_INTENDED }

const DAY_MS = 24 * 60 * 60 * 1000

/** The methods of the request's login: the JWT's `amr` claim, or the session's. */
export function loginAmr(ctx: HttpContext, driver: string): readonly string[] {
  if (driver !== 'jwt') return sessionAmr(ctx)
  const amr = ctx.state.jwt?.payload.amr
  return Array.isArray(amr) ? amr.filter((m): m is string => typeof m === 'string') : []
}

/** Whether `user` has a second factor to answer with: one of the features' that are on (TOTP turned on, a passkey). */
export async function hasFactor(ctx: HttpContext, user: AuthUser): Promise<boolean> {
  for (const factor of ctx.auth.manager.secondFactors) if (await factor.enrolled(user.getKey())) return true
  return false
}

/** Whether the account is still inside its grace period (`created_at` + `grace_days` ahead). */
function inGrace(user: AuthUser, graceDays: number): boolean {
  if (graceDays <= 0) return false
  const created = (user as unknown as { created_at?: unknown }).created_at
  if (created === null || created === undefined || created === '') return false
  const at = created instanceof Date ? created.getTime() : new Date(created as string | number).getTime()
  return Number.isFinite(at) && Date.now() < at + graceDays * DAY_MS
}

/** Sends a login without a second factor to answer one: 302 to the second step's page, JSON 403. */
export function stepUp(ctx: HttpContext, json: boolean): unknown {
  const page = ctx.auth.manager.secondStepPage
  if (json || !ctx.hasSession || page === null) throw new MfaRequiredError()
  const { request } = ctx
  const target = request.method === 'GET' ? sameSitePath(request.url) : refererPath(request.header('referer'))
  if (target) ctx.session.put(MFA_INTENDED, target)
  else ctx.session.forget(MFA_INTENDED)
  return ctx.response.redirect(page)
}

/**
 * For pages that manage a user's factors (TOTP, recovery codes, passkeys): a user who already has
 * a factor must show one before changing them, so a password alone cannot add, replace or remove
 * a second factor. Answers like `mfa` (a page: 302 to the second step's page, coming back
 * afterwards; JSON: 403 `E_MFA_REQUIRED`) when the logged-in user has a factor and this login has
 * not used one; else undefined (go on). A user with no factor at all may enrol.
 */
export async function stepUpIfEnrolled(ctx: HttpContext): Promise<unknown> {
  const auth = ctx.auth
  const driver = auth.resolve().driverName
  if (!(await auth.check())) return undefined
  if (hasSecondFactor(loginAmr(ctx, driver))) return undefined
  if (!(await hasFactor(ctx, auth.user() as AuthUser))) return undefined
  return stepUp(ctx, ctx.route?.json || ctx.request.wantsJson() || driver === 'jwt')
}

export class MfaMiddleware extends Middleware {
  async before(ctx: HttpContext, guard?: string): Promise<unknown> {
    const auth = guard ? ctx.auth.guard(guard) : ctx.auth
    const driver = auth.resolve().driverName
    const json = ctx.route?.json || ctx.request.wantsJson() || driver === 'jwt'
    if (!(await auth.check())) {
      if (json) throw new UnauthorizedError()
      return ctx.response.redirect('/login')
    }
    if (hasSecondFactor(loginAmr(ctx, driver))) return undefined
    const user = auth.user() as AuthUser
    if (await hasFactor(ctx, user)) return stepUp(ctx, json)
    if (inGrace(user, ctx.auth.manager.resolved.mfa.graceDays)) return undefined
    // Sent to enrol with the first feature on that offers a factor; with none on there is nothing to enrol.
    const enrol = ctx.auth.manager.secondFactors[0]?.enrolPage
    if (json || !ctx.hasSession || enrol === undefined) throw new MfaRequiredError()
    return ctx.response.redirect(enrol)
  }

  override validate(where: string, guard?: string): void {
    assertGuard(this.app, where, guard)
  }
}
