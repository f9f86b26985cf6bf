/**
 * @module auth/two-factor/inventory
 * The kinds of the `two_factor` feature, registered whether or not it is on:
 * - `totp` (a way to sign in): the secret on the users row and its recovery codes, one item per
 *   user (id: the user's key, created when confirmed); kept by every revocation but deletion, and
 *   removed by "This wasn't me" when confirmed at or after the reported event.
 * - `trusted_devices`: browsers trusted to skip the second step (`user_tokens` of purpose
 *   `two_factor_trust`), ended by every revocation but a password change.
 * The columns and the recovery codes table come in one migration: in an app that has not run it
 * neither kind runs (`totp` requires the recovery codes table).
 */
import type { Knex } from 'knex'
import { storedDate, wholeSecond, type InventoryKind, type RevocationReason } from '../inventory/index.js'
import { tableKind } from '../inventory/table-kind.js'
import { TRUST_PURPOSE } from './trusted-devices.js'

const RECOVERY_CODES = 'two_factor_recovery_codes'
const USER_TOKENS = 'user_tokens'
/** A way to sign in ends only with the account (and by "This wasn't me" for the ones it reports). */
const DELETE_ONLY: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['delete'])

type Db = Knex | Knex.Transaction

/** The TOTP enrolment of a user: the secret columns on the users row (`users()`), and the recovery codes. */
export function totpKind(users: () => { table: string; key: string }): InventoryKind {
  const turnOff = async (userId: unknown, db: Db, since?: Date): Promise<number> => {
    const { table, key } = users()
    const query = db(table).where(key, userId as string | number).whereNotNull('two_factor_confirmed_at')
    if (since) query.where('two_factor_confirmed_at', '>=', wholeSecond(since))
    const ended = Number(await query.update({ two_factor_secret: null, two_factor_confirmed_at: null, two_factor_last_step: null }))
    if (ended > 0) await db(RECOVERY_CODES).where('user_id', userId as string | number).delete()
    return ended
  }
  return {
    name: 'totp',
    signInMethod: true,
    title: 'Authenticator app (two-factor codes)',
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
      return Number(await db(RECOVERY_CODES).where('user_id', userId as string | number).delete())
    },
    revokeCreatedSince: (userId, since, db) => turnOff(userId, db, since),
  }
}

/** Ended by every revocation but a password change (the user at the keyboard keeps their trusted browsers). */
const TRUST_ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'password_reset', 'logout_others', 'delete'])

/** Browsers trusted to skip the second step (`two_factor` feature). */
export function trustedDevicesKind(): InventoryKind {
  return {
    ...tableKind({
      name: 'trusted_devices',
      table: USER_TOKENS,
      endsOn: TRUST_ENDS_ON,
      rows: (db, userId) => db(USER_TOKENS).where({ user_id: userId, purpose: TRUST_PURPOSE }),
      label: () => 'Trusted browser',
    }),
    purposes: [TRUST_PURPOSE],
  }
}
