/**
 * @module auth/two-factor/install
 * The `two_factor` feature's binding (its module's `register`, whatever the features: a console
 * command turns a user's TOTP off even with the feature off): `auth.two_factor`, the TwoFactor
 * service over the auth model's users table, the app's encrypter (APP_KEY), and the trusted
 * devices (`user_tokens` of purpose `two_factor_trust`) that turning TOTP off forgets. Built on
 * first use.
 */
import type { Application } from '../../foundation/application.js'
import { connectionOf } from '../../database/app-database.js'
import { TwoFactor } from './two-factor.js'
import { TRUST_PURPOSE } from './trusted-devices.js'

export function registerTwoFactor(app: Application): void {
  app.singleton('auth.two_factor', () => {
    const manager = () => app.make('auth.manager')
    return new TwoFactor({
      db: () => connectionOf(app),
      users: () => {
        const model = manager().model
        return { table: model?.getTable?.() ?? 'users', key: model?.getPrimaryKey?.() ?? 'id' }
      },
      encrypter: app.make('encrypter'),
      trustedDevices: {
        available: async () => {
          const { migrated } = manager().inventory
          await migrated.ready()
          return migrated.has('user_tokens')
        },
        forget: (userId, trx) => manager().userTokens.revokeAll(userId, TRUST_PURPOSE, trx),
      },
      log: app.log,
    })
  })
}
