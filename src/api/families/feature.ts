/**
 * @module api/families/feature
 * Token families as a piece of the API: with `DRIVERS.jwt.store = 'table'`, the JwtService keeps
 * one family per device in `api_tokens` (rotation with reuse detection), and the account's
 * devices page lists each live family and can end one.
 */
import { defineApiFeature } from '../features/contract.js'
import { devicesOf } from '../../auth/accounts/devices.js'
import { familyOptions, type FamilySettings } from './options.js'
import { TokenFamilyDevices } from './family-devices.js'

export const familiesFeature = defineApiFeature<FamilySettings>({
  name: 'families',
  options: familyOptions,
  jwt: (families) => ({ families }),
  install(app) {
    if (!app.has('auth.manager')) return
    const manager = app.make('auth.manager')
    devicesOf(manager).register(new TokenFamilyDevices(() => app.make('api.jwt').families!, manager.inventory))
  },
  migrations: ['create_api_tokens_table'],
  prune: [
    {
      table: 'api_tokens',
      // Revoked families, and those past `max_age`.
      expired: (q, now) => q.whereNotNull('revoked_at').orWhere((w) => w.whereNotNull('expires_at').where('expires_at', '<=', now)),
      // The encrypted successors kept for retries (`reuse_window` is at most an hour) go too.
      tidy: (q, now) => q.whereNotNull('successor').where('replaced_at', '<', new Date(now.getTime() - 3_600_000)).update({ successor: null }),
    },
  ],
})
