/**
 * @module auth/two-factor/install-challenge
 * The services of the second step of a login (`auth.two_factor_challenge`, bound by the module's
 * `register` whatever the features and built on first use): the pending logins, trusted devices
 * and the wrong-answer watch, which the challenge page needs for a passkey step-up too. With
 * `two_factor` on, its module's `loginChallenge` (see login-challenge) uses them. The challenges
 * and trusted devices are inventory kinds (auth/inventory/login-challenges-kind,
 * two-factor/inventory), ended by the revocations they name.
 */
import type { Application } from '../../foundation/application.js'
import { PendingLogins } from './pending-login.js'
import { TrustedDevices } from './trusted-devices.js'
import { SecondFactorWatch } from './failure-watch.js'

/** What the challenge page and the API's second step share. */
export interface TwoFactorChallengeServices {
  pending: PendingLogins
  trusted: TrustedDevices
  /** Wrong answers per account (the notice, the daily stop) and one answer at a time per mfa_token. */
  watch: SecondFactorWatch
}

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    /** The pending logins and trusted devices of the second step (`two_factor` feature). */
    'auth.two_factor_challenge': TwoFactorChallengeServices
  }
}

/** Binds `auth.two_factor_challenge`, built on first use (the challenge page serves the passkey step-up of `mfa` with `passkeys` alone). */
export function registerTwoFactorChallenge(app: Application): void {
  app.singleton('auth.two_factor_challenge', (): TwoFactorChallengeServices => ({
    pending: new PendingLogins(),
    trusted: new TrustedDevices(app.make('auth.manager')),
    watch: new SecondFactorWatch(app.make('auth.throttle').store),
  }))
}
