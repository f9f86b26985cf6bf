/**
 * @module auth/two-factor/install-challenge
 * Boot-time wiring of the second step of a login (called by AuthProvider), with the `two_factor`
 * or the `passkeys` feature on: the pending logins and trusted devices (`auth.two_factor_challenge`,
 * which the challenge page needs for a passkey step-up too), the user's `auth_challenges` rows
 * (mfa_tokens, passkey ceremonies) as one more thing the LoginRevoker ends (a password reset or
 * change, "This wasn't me", "log out other devices"), and with `two_factor` the LoginChallenge on
 * `manager.challenges` (see login-challenge) and the trusted devices, also ended by the revoker.
 */
import type { Knex } from 'knex'
import type { Application } from '../../foundation/application.js'
import type { ResolvedAuthConfig } from '../auth-config.js'
import { twoFactorLoginChallenge } from './login-challenge.js'
import { PendingLogins } from './pending-login.js'
import { TRUST_PURPOSE, TrustedDevices } from './trusted-devices.js'
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
  // Pending logins and mfa_tokens of a user end with every revocation (a password reset, "log out
  // everywhere"), like the logins: not counted as logins.
  manager.revoker.register('auth_challenges', async (userId, db) => {
    if (await manager.revoker.hasTable('auth_challenges', db)) await app.make('auth.challenges').revokeAll(userId, db as Knex.Transaction)
    return 0
  })
  if (!twoFactor) return
  manager.challenges.push(twoFactorLoginChallenge(app, services.pending, services.trusted))
  // A trusted browser is not a login: its mark ends with the others but is not counted as one.
  manager.revoker.register('two_factor_trust', async (userId, db) => {
    if (await manager.revoker.hasTable('user_tokens', db)) await db('user_tokens').where({ user_id: userId as string | number, purpose: TRUST_PURPOSE }).delete()
    return 0
  })
}
