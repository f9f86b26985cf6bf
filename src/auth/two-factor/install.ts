/**
 * @module auth/two-factor/install
 * Boot-time wiring of the `two_factor` feature (called by AuthProvider): binds `auth.two_factor`,
 * the TwoFactor service over the auth model's users table, the app's encrypter (APP_KEY), and the
 * trusted devices (`user_tokens` of purpose `two_factor_trust`) that turning TOTP off forgets.
 */
import type { Application } from '../../foundation/application.js'
import { db } from '../../database/database-manager.js'
import type { ResolvedAuthConfig } from '../auth-config.js'
import type { UserTokenPurpose } from '../accounts/user-tokens.js'
import { TwoFactor } from './two-factor.js'

/** The purpose of the `user_tokens` rows of devices trusted to skip the second step. */
const TRUST_PURPOSE = 'two_factor_trust' as UserTokenPurpose

export async function installTwoFactor(app: Application, _config: ResolvedAuthConfig): Promise<void> {
  app.singleton('auth.two_factor', () => {
    const manager = () => app.make('auth.manager')
    return new TwoFactor({
      db: () => db(),
      users: () => {
        const model = manager().model
        return { table: model?.getTable?.() ?? 'users', key: model?.getPrimaryKey?.() ?? 'id' }
      },
      encrypter: app.make('encrypter'),
      trustedDevices: {
        available: () => manager().inventory.hasTable('user_tokens'),
        forget: (userId, trx) => manager().userTokens.revokeAll(userId, TRUST_PURPOSE, trx),
      },
      log: app.log,
    })
  })
}
