/**
 * @module auth/inventory/auth-kinds
 * Registers the core's kinds (one call, from createAuthManager): the web logins and "remember me"
 * tokens, device cookies, pending e-mail changes, mailed links and login challenges. Each feature
 * adds its own (its module's `inventory`), the API its own (api/api-inventory).
 */
import type { Knex } from 'knex'
import type { AuthInventory } from './index.js'
import { loginsKind, rememberTokensKind } from './web-kinds.js'
import { DeviceRevocations } from './device-cookies.js'
import { emailChangesKind, mailedLinksKind, type UsersTable } from './account-kinds.js'
import { loginChallengesKind } from './login-challenges-kind.js'

export interface AuthKindsOptions {
  db: () => Knex
  /** The auth model's users table, primary key and address column (read when a kind runs). */
  users: () => UsersTable
  /** `GUARDS.passwords.table` (the password reset links). */
  resetTable: string
}

/** Registers the auth kinds; answers the device revocations the web guard checks its cookies against. */
export function registerAuthKinds(inventory: AuthInventory, options: AuthKindsOptions): DeviceRevocations {
  const devices = new DeviceRevocations(inventory, options.db)
  inventory.register(loginsKind(inventory))
  inventory.register(rememberTokensKind())
  inventory.register(devices.kind())
  inventory.register(emailChangesKind())
  inventory.register(mailedLinksKind(inventory, options.users, options.resetTable))
  inventory.register(loginChallengesKind())
  return devices
}
