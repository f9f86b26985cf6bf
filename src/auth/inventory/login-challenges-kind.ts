/**
 * @module auth/inventory/login-challenges-kind
 * `login_challenges` (`auth_challenges`): passkey ceremonies and the API's pending second steps
 * (`mfa_token`), logins in progress: never listed, ended by every revocation. The table comes with
 * a core migration; an app migrated before it has one cached check.
 */
import { ALL_REASONS, type AuthInventory, type InventoryKind } from './index.js'

const CHALLENGES = 'auth_challenges'

/** Passkey ceremonies and pending API second steps: never listed, ended by every revocation. */
export function loginChallengesKind(inventory: AuthInventory): InventoryKind {
  return {
    name: 'login_challenges',
    endsOn: ALL_REASONS,
    tables: [CHALLENGES],
    list: async () => [],
    revokeOne: async () => 0,
    async revokeAll(userId, db) {
      if (!(await inventory.hasTable(CHALLENGES, db))) return 0
      return db(CHALLENGES).where('user_id', userId as string | number).delete()
    },
  }
}
