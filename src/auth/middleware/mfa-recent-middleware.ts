/**
 * @module auth/middleware/mfa-recent-middleware
 * `mfa.recent`: for sensitive actions (turning a second factor off, adding a passkey, creating a
 * personal access token). A user who has a second factor (TOTP on, or a passkey) passes only when
 * this login gave one within the last `GUARDS.web.password_timeout` minutes: a TOTP or recovery
 * code on the second step's page, a passkey, or a factor just enrolled. A trusted-device mark,
 * which skips the login's challenge, never counts. Otherwise a page gets the `mfa` middleware's
 * step-up (302 to the second step's page, back to the page afterwards) and JSON 403 `E_MFA_REQUIRED`.
 * A user without a factor passes. On a JWT guard (`mfa.recent:jwt`) the token must carry a second
 * factor in `amr` and have been issued within the timeout; a personal access token never does.
 * Someone not logged in is sent to log in first (401 for JSON). Put it after `auth`.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { UnauthorizedError } from '../errors.js'
import type { AuthUser } from '../types.js'
import { hasSecondFactor, secondFactorRecent } from '../login/amr.js'
import { hasFactor, loginAmr, stepUp } from './mfa-middleware.js'
import { assertGuard } from './assert-guard.js'

/** Whether the request's login gave a second factor within `minutes`. */
function recent(ctx: HttpContext, driver: string, minutes: number): boolean {
  if (driver !== 'jwt') return secondFactorRecent(ctx, minutes)
  if (!hasSecondFactor(loginAmr(ctx, driver))) return false
  const iat = ctx.state.jwt?.payload.iat
  return typeof iat === 'number' && Date.now() - iat * 1000 < minutes * 60_000
}

/**
 * The check of `mfa.recent`, also called by the actions it guards so that they hold whatever
 * order an app lists its middleware in: undefined to go on, else the answer (a 302 to the
 * step-up page, or a thrown 401/403).
 */
export async function requireRecentSecondFactor(ctx: HttpContext, guard?: string): Promise<unknown> {
  const auth = guard ? ctx.auth.guard(guard) : ctx.auth
  const driver = auth.resolve().driverName
  const json = ctx.route?.json || ctx.request.wantsJson() || driver === 'jwt'
  if (!(await auth.check())) {
    if (json || !ctx.hasSession) throw new UnauthorizedError()
    return ctx.response.redirect('/login')
  }
  if (recent(ctx, driver, ctx.auth.manager.resolved.passwordTimeout)) return undefined
  if (!(await hasFactor(ctx, auth.user() as AuthUser))) return undefined
  return stepUp(ctx, json)
}

export class MfaRecentMiddleware extends Middleware {
  async before(ctx: HttpContext, guard?: string): Promise<unknown> {
    return requireRecentSecondFactor(ctx, guard)
  }

  override validate(where: string, guard?: string): void {
    assertGuard(this.app, where, guard)
  }
}
