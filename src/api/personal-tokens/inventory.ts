/**
 * @module api/personal-tokens/inventory
 * The `personal_tokens` kind of the auth inventory: personal access tokens are for scripts. A
 * password change or reset and "log out other devices" keep them; "This wasn't me" and account
 * deletion end them.
 */
import type { Knex } from 'knex'
import { storedDate, type AuthInventory, type InventoryItem, type InventoryKind, type RevocationReason } from '../../auth/inventory/index.js'
import { PERSONAL_TOKENS_TABLE } from './repository.js'

const PERSONAL_ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'delete'])
const ROW_ID = /^[1-9][0-9]{0,18}$/

type Db = Knex | Knex.Transaction

export function personalTokensKind(inventory: AuthInventory): InventoryKind {
  const has = (db: Db) => inventory.hasTable(PERSONAL_TOKENS_TABLE, db)
  return {
    name: 'personal_tokens',
    endsOn: PERSONAL_ENDS_ON,
    tables: [PERSONAL_TOKENS_TABLE],
    async list(userId, db) {
      if (!(await has(db))) return []
      const rows = await db(PERSONAL_TOKENS_TABLE).where('user_id', userId as string | number).orderBy('id').select('id', 'name', 'created_at')
      return rows.map((row): InventoryItem => ({ kind: 'personal_tokens', id: String(row.id), label: String(row.name), createdAt: storedDate(row.created_at) }))
    },
    async revokeOne(userId, id, db) {
      if (!ROW_ID.test(id) || !(await has(db))) return 0
      return db(PERSONAL_TOKENS_TABLE).where({ id, user_id: userId as string | number }).delete()
    },
    async revokeAll(userId, db) {
      if (!(await has(db))) return 0
      return db(PERSONAL_TOKENS_TABLE).where('user_id', userId as string | number).delete()
    },
  }
}
