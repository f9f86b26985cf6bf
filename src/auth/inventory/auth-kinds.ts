/**
 * @module auth/inventory/auth-kinds
 * Registers the kinds of the auth features this app has on (one call, from createAuthManager):
 * the web logins and "remember me" tokens, device cookies, pending e-mail changes and mailed links
 * always; trusted browsers and TOTP with `two_factor`; passkeys with `passkeys`; login challenges
 * with either. The API adds its own (api/api-inventory).
 */
import type { Knex } from 'knex'
import type { AuthInventory } from './index.js'
import { loginsKind, rememberTokensKind, trustedDevicesKind } from './web-kinds.js'
import { DeviceRevocations } from './device-cookies.js'
import { emailChangesKind, mailedLinksKind, type UsersTable } from './account-kinds.js'
import { loginChallengesKind, passkeysKind, totpKind } from './second-factor-kinds.js'

export interface AuthKindsOptions {
  db: () => Knex
  /** `GUARDS.features`. */
  features: ReadonlySet<string>
  /** The auth model's users table, primary key and address column (read when a kind runs). */
  users: () => UsersTable
  /** `GUARDS.passwords.table` (the password reset links). */
  resetTable: string
}

/** Registers the auth kinds; answers the device revocations the web guard checks its cookies against. */
export function registerAuthKinds(inventory: AuthInventory, options: AuthKindsOptions): DeviceRevocations {
  const devices = new DeviceRevocations(inventory, options.db)
  const { features } = options
  inventory.register(loginsKind(inventory))
  inventory.register(rememberTokensKind(inventory))
  inventory.register(devices.kind())
  inventory.register(emailChangesKind(inventory))
  inventory.register(mailedLinksKind(inventory, options.users, options.resetTable))
  if (features.has('two_factor')) {
    inventory.register(trustedDevicesKind(inventory))
    inventory.register(totpKind(inventory, options.users))
  }
  if (features.has('passkeys')) inventory.register(passkeysKind(inventory))
  if (features.has('two_factor') || features.has('passkeys')) inventory.register(loginChallengesKind(inventory))
  return devices
}
