/**
 * @module auth/passkeys/inventory
 * The `passkeys` kind (a way to sign in): kept by every revocation but deletion; "This wasn't me"
 * removes the reported one and those created at or after the reported event (`revokeCreatedSince`).
 * Registered whether or not the feature is on; an app migrated before the passkeys table has one
 * cached check.
 */
import type { Knex } from 'knex'
import { storedDate, wholeSecond, type AuthInventory, type InventoryItem, type InventoryKind, type RevocationReason } from '../inventory/index.js'

const PASSKEYS = 'passkeys'
const ROW_ID = /^[1-9][0-9]{0,14}$/
/** A way to sign in ends only with the account (and by "This wasn't me" for the ones it reports). */
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
