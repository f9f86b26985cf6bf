/**
 * @module auth/organizations/invitations-kind
 * The inventory kind `organization_invitations`: the invitations a user sent that are still
 * pending. "This wasn't me" and deletion revoke them (an intruder's invitations die with the
 * recovery), as does "revoke what was added since" the takeover began. On deletion, `beforeDelete`
 * runs first in the same transaction (the organisations' last-owner rule, which may refuse it).
 * Registered whatever the features, so invitations sent before the feature was turned off still end.
 */
import type { Knex } from 'knex'
import { storedDate, type AuthInventory, type InventoryItem, type InventoryKind, type RevocationReason } from '../inventory/index.js'
import { InvitationStore } from './invitation-store.js'
import { INVITATIONS_TABLE } from './records.js'

const ROW_ID = /^[1-9][0-9]{0,14}$/
const ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'delete'])

export function organizationInvitationsKind(inventory: AuthInventory, beforeDelete?: (userId: unknown, trx: Knex.Transaction) => Promise<void>): InventoryKind {
  const has = (db: Knex | Knex.Transaction) => inventory.hasTable(INVITATIONS_TABLE, db)
  const key = (userId: unknown) => userId as string | number
  const revoke = (q: Knex.QueryBuilder) => q.update({ revoked_at: new Date() })
  return {
    name: 'organization_invitations',
    endsOn: ENDS_ON,
    tables: [INVITATIONS_TABLE],
    async list(userId, db) {
      if (!(await has(db))) return []
      const rows = await InvitationStore.pendingOf(db, key(userId)).select('id', 'email', 'created_at')
      return rows.map((row: Record<string, unknown>): InventoryItem => ({ kind: 'organization_invitations', id: String(row.id), label: `Invitation to ${String(row.email)}`, createdAt: storedDate(row.created_at) }))
    },
    async revokeOne(userId, id, db) {
      if (!ROW_ID.test(id) || !(await has(db))) return 0
      return revoke(InvitationStore.pendingOf(db, key(userId)).where('id', Number(id)))
    },
    async revokeAll(userId, db, options) {
      if (!(await has(db))) return 0
      if (options.deleting && beforeDelete && 'commit' in db) await beforeDelete(userId, db as Knex.Transaction)
      return revoke(InvitationStore.pendingOf(db, key(userId)))
    },
    async revokeCreatedSince(userId, since, db) {
      if (!(await has(db))) return 0
      return revoke(InvitationStore.pendingOf(db, key(userId)).where('created_at', '>=', new Date(Math.floor(since.getTime() / 1000) * 1000)))
    },
  }
}
