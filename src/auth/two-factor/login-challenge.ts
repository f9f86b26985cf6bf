/**
 * @module auth/two-factor/login-challenge
 * The LoginChallenge of the `two_factor` feature (on `manager.challenges`): after a correct
 * password of a user with TOTP turned on, nobody is logged in yet.
 * - Web guard: a browser this user trusted (see trusted-devices) goes on (the login's amr is then
 *   `['pwd', 'otp']`); otherwise the pending login is put in the session and
 *   `SecondFactorRequiredError` (401 `E_MFA_REQUIRED`) thrown, which the login form answers with a
 *   302 to `/two-factor-challenge`.
 * - JWT guard: a single-use `mfa_token` (5 minutes, `auth_challenges`) is made and thrown with the
 *   401, to be answered on `POST <authRoute>/two-factor`; its purpose names the first step's
 *   method (see login/flow `mfaPurposeOf`), so the second step keeps that method's amr.
 * - Any other guard cannot finish a second step: 401 `E_MFA_REQUIRED`.
 */
import type { Application } from '../../foundation/application.js'
import type { LoginChallenge } from '../guards/base-guard.js'
import { SecondFactorRequiredError } from './errors.js'
import { CHALLENGE_PAGE } from './second-step-routes.js'
import { mfaPurposeOf } from '../login/flow.js'
import { passwordFingerprint, type PendingLogins } from './pending-login.js'
import type { TrustedDevices } from './trusted-devices.js'

/** Seconds an API `mfa_token` can be answered. */
export const MFA_TOKEN_SECONDS = 300

/** The amr of a password login that skipped the second step on a trusted device. */
export const TRUSTED_DEVICE_AMR: readonly string[] = ['pwd', 'otp']

declare module '../../http/context.js' {
  interface RequestState {
    /** Set by the second-factor challenge when a trusted device skipped it: the login's amr. */
    loginAmr?: readonly string[]
  }
}

export function twoFactorLoginChallenge(app: Application, pending: PendingLogins, trusted: TrustedDevices): LoginChallenge {
  return async (ctx, guardName, user) => {
    const userId = user.getKey()
    if (!(await app.make('auth.two_factor').isEnabled(userId))) return
    const driver = ctx.auth.resolve(guardName).driverName
    if (driver === 'jwt') {
      const token = await app.make('auth.challenges').create(mfaPurposeOf(ctx), userId, MFA_TOKEN_SECONDS)
      throw new SecondFactorRequiredError(token)
    }
    if (driver === 'session' && ctx.hasSession) {
      if (await trusted.isTrusted(ctx, userId)) {
        ctx.state.loginAmr = TRUSTED_DEVICE_AMR
        return
      }
      pending.start(ctx, userId as string | number, guardName, { password: passwordFingerprint(ctx, guardName, user) })
      throw new SecondFactorRequiredError(undefined, undefined, { page: CHALLENGE_PAGE })
    }
    throw new SecondFactorRequiredError()
  }
}
