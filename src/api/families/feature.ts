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
})
