/**
 * @module auth/inventory/second-factor-kinds
 * The kinds of the `two_factor` and `passkeys` features:
 * - `passkeys` (a way to sign in): kept by every revocation but deletion; "This wasn't me" removes
 *   the reported one and those created at or after the reported event (`revokeCreatedSince`).
 * - `totp` (a way to sign in): the secret on the users row and its recovery codes, one item per
 *   user (id: the user's key, created when confirmed); removed like passkeys.
 * - `login_challenges` (`auth_challenges`): passkey ceremonies and the API's pending second steps
 *   (`mfa_token`), logins in progress: every revocation ends them.
 * Their tables come with the two-factor migration, which `craft auth` installs; an app migrated
 * before it has one cached check per table.
 */
import type { Knex } from 'knex'
import { ALL_REASONS, storedDate, wholeSecond, type AuthInventory, type InventoryItem, type InventoryKind, type RevocationReason } from './index.js'

const PASSKEYS = 'passkeys'
const RECOVERY_CODES = 'two_factor_recovery_codes'
const CHALLENGES = 'auth_challenges'
const ROW_ID = /^[1-9][0-9]{0,14}$/
/** Ways to sign in end only with the account (and by "This wasn't me" for the ones it reports). */
const DELETE_ONLY: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['delete'])

type Db = Knex | Knex.Transaction

export function passkeysKind(inventory: AuthInventory): InventoryKind {
  const has = (db: Db) => inventory.hasTable(PASSKEYS, db)
  return {
    name: 'passkeys',
    signInMethod: true,
    endsOn: DELETE_ONLY,
    tables: [PASSKEYS],
    async list(userId, db) {
      if (!(await has(db))) return []
      const rows = await db(PASSKEYS).where('user_id', userId as string | number).orderBy('id').select('id', 'name', 'created_at')
      return rows.map((row): InventoryItem => ({ kind: 'passkeys', id: String(row.id), label: String(row.name), createdAt: storedDate(row.created_at) }))
    },
    async revokeOne(userId, id, db) {
      if (!ROW_ID.test(id) || !(await has(db))) return 0
      return db(PASSKEYS).where({ id: Number(id), user_id: userId as string | number }).delete()
    },
    async revokeAll(userId, db) {
      if (!(await has(db))) return 0
      return db(PASSKEYS).where('user_id', userId as string | number).delete()
    },
    async revokeCreatedSince(userId, since, db) {
      if (!(await has(db))) return 0
      return db(PASSKEYS).where('user_id', userId as string | number).where('created_at', '>=', wholeSecond(since)).delete()
    },
  }
}

/** The TOTP enrolment of a user: the secret columns on the users row (`users()`), and the recovery codes. */
export function totpKind(inventory: AuthInventory, users: () => { table: string; key: string }): InventoryKind {
  const turnOff = async (userId: unknown, db: Db, since?: Date): Promise<number> => {
    const { table, key } = users()
    const query = db(table).where(key, userId as string | number).whereNotNull('two_factor_confirmed_at')
    if (since) query.where('two_factor_confirmed_at', '>=', wholeSecond(since))
    const ended = Number(await query.update({ two_factor_secret: null, two_factor_confirmed_at: null, two_factor_last_step: null }))
    if (ended > 0 && (await inventory.hasTable(RECOVERY_CODES, db))) await db(RECOVERY_CODES).where('user_id', userId as string | number).delete()
    return ended
  }
  return {
    name: 'totp',
    signInMethod: true,
    endsOn: DELETE_ONLY,
    tables: [RECOVERY_CODES],
    async list(userId, db) {
      const { table, key } = users()
      const row = await db(table).where(key, userId as string | number).whereNotNull('two_factor_confirmed_at').first('two_factor_confirmed_at')
      return row ? [{ kind: 'totp', id: String(userId), label: 'Authenticator app', createdAt: storedDate(row.two_factor_confirmed_at) }] : []
    },
    revokeOne: (userId, id, db) => (id === String(userId) ? turnOff(userId, db) : Promise.resolve(0)),
    async revokeAll(userId, db, { deleting }) {
      // The row itself goes with the account: only the codes need deleting.
      if (!deleting) return turnOff(userId, db)
      if (!(await inventory.hasTable(RECOVERY_CODES, db))) return 0
      return Number(await db(RECOVERY_CODES).where('user_id', userId as string | number).delete())
    },
    revokeCreatedSince: (userId, since, db) => turnOff(userId, db, since),
  }
}

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
