/**
 * @module auth/organizations/invitations-kind
 * The inventory kind `organization_invitations`: the invitations a user sent that are still
 * pending. "This wasn't me" and deletion revoke them (an intruder's invitations die with the
 * recovery), as does "revoke what was added since" the takeover began. On deletion, `beforeDelete`
 * runs first in the same transaction (the organisations' last-owner rule, which may refuse it).
 * Registered whatever the features, so invitations sent before the feature was turned off still end.
 */
import type { Knex } from 'knex'
import type { InventoryKind, RevocationReason } from '../inventory/index.js'
import { tableKind } from '../inventory/table-kind.js'
import { InvitationStore } from './invitation-store.js'
import { INVITATIONS_TABLE } from './records.js'

const ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'delete'])

export function organizationInvitationsKind(beforeDelete?: (userId: unknown, trx: Knex.Transaction) => Promise<void>): InventoryKind {
  return tableKind({
    name: 'organization_invitations',
    table: INVITATIONS_TABLE,
    endsOn: ENDS_ON,
    rows: (db, userId) => InvitationStore.pendingOf(db, userId),
    columns: ['email'],
    label: (row) => `Invitation to ${String(row.email)}`,
    end: async (rows) => Number(await rows.update({ revoked_at: new Date() })),
    beforeRevokeAll: async (userId, db, options) => {
      if (options.deleting && beforeDelete && 'commit' in db) await beforeDelete(userId, db as Knex.Transaction)
    },
    createdSince: true,
  })
}
