/**
 * @module auth/two-factor/install-challenge
 * Boot-time wiring of the second step of a login (called by AuthProvider), with the `two_factor`
 * or the `passkeys` feature on: the pending logins and trusted devices (`auth.two_factor_challenge`,
 * which the challenge page needs for a passkey step-up too). With `two_factor`, its module's
 * `loginChallenge` (see login-challenge) uses them. The challenges and trusted devices are
 * inventory kinds (auth/inventory/login-challenges-kind, two-factor/inventory), ended by the
 * revocations they name.
 */
import type { Application } from '../../foundation/application.js'
import type { ResolvedAuthConfig } from '../auth-config.js'
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

export async function installTwoFactorChallenge(app: Application, config: ResolvedAuthConfig): Promise<void> {
  const twoFactor = config.features.has('two_factor')
  // The challenge page also serves the passkey step-up that `mfa` asks for with `passkeys` alone.
  if (!twoFactor && !config.features.has('passkeys')) return
  const manager = app.make('auth.manager')
  const services: TwoFactorChallengeServices = { pending: new PendingLogins(), trusted: new TrustedDevices(manager), watch: new SecondFactorWatch(app.make('auth.throttle').store) }
  app.singleton('auth.two_factor_challenge', () => services)
}
