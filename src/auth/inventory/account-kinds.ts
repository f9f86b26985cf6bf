/**
 * @module auth/inventory/account-kinds
 * The account features' kinds, all in `user_tokens` (and the password reset table):
 * - `email_changes`: pending e-mail verification and change links (purposes in
 *   `EMAIL_CHANGE_PURPOSES`): every revocation ends them, so an intruder's pending move of the
 *   account to their address dies with the recovery, a password change or "log out other devices".
 * - `mailed_links`: every other single-use link or code mailed to the user ("This wasn't me" links,
 *   password reset links, and any purpose a feature adds), ended by "This wasn't me" and deletion.
 * Marks that are not mailed (the device-cookie revocation time, a feature's rows its kind names in
 * `purposes`, such as trusted browsers) belong to their own kinds and are left alone here.
 */
import type { Knex } from 'knex'
import { ALL_REASONS, storedDate, type AuthInventory, type InventoryItem, type InventoryKind, type RevocationReason, type UsersTable } from './index.js'
import { DEVICES_REVOKED_PURPOSE } from './device-cookies.js'
import { tableKind } from './table-kind.js'

const TABLE = 'user_tokens'
/** `user_tokens.purpose` of links that verify an address (the account's own, or one it moves to). */
export const EMAIL_CHANGE_PURPOSES: readonly string[] = ['verify_email', 'email_change']
/** `user_tokens.purpose` of the core's rows other kinds own (not mailed links); a feature's kind names its own (`purposes`). */
const CORE_NOT_MAILED: readonly string[] = [DEVICES_REVOKED_PURPOSE, ...EMAIL_CHANGE_PURPOSES]
const ROW_ID = /^[1-9][0-9]{0,14}$/
const MAILED_ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'delete'])

type Db = Knex | Knex.Transaction

/** Where the auth model's users live, and the column holding their address. */
export type { UsersTable } from './index.js'

/** Pending e-mail changes (and verification links). */
export function emailChangesKind(): InventoryKind {
  return tableKind({
    name: 'email_changes',
    table: TABLE,
    endsOn: ALL_REASONS,
    rows: (db, userId) => db(TABLE).where('user_id', userId).whereIn('purpose', EMAIL_CHANGE_PURPOSES),
    columns: ['email'],
    label: (row) => String(row.email ?? ''),
  })
}

/**
 * Every other mailed link: `user_tokens` rows of any other purpose, and the user's password reset
 * links (`resetTable`, keyed by address). A reset link's id is `reset` (a user has at most one).
 */
export function mailedLinksKind(inventory: AuthInventory, users: () => UsersTable, resetTable: string): InventoryKind {
  // Read when asked: a feature's kinds are registered after this one.
  const notMailed = () => [...CORE_NOT_MAILED, ...inventory.kinds().flatMap((kind) => kind.purposes ?? [])]
  const rows = (userId: unknown, db: Db) => db(TABLE).where('user_id', userId as string | number).whereNotIn('purpose', notMailed())
  const addressOf = async (userId: unknown, db: Db): Promise<string | null> => {
    const { table, key, email } = users()
    const row = await db(table).where(key, userId as string | number).first(email)
    const address = row?.[email]
    return typeof address === 'string' && address !== '' ? address : null
  }
  /** The user's reset link rows' address, or null (no table, no address). A builder is not returned: awaiting it would run it. */
  const resetAddress = async (userId: unknown, db: Db): Promise<string | null> => (inventory.migrated.has(resetTable) ? addressOf(userId, db) : null)
  const deleteResets = async (userId: unknown, db: Db): Promise<number> => {
    const address = await resetAddress(userId, db)
    return address === null ? 0 : Number(await db(resetTable).where('email', address).delete())
  }
  return {
    name: 'mailed_links',
    endsOn: MAILED_ENDS_ON,
    tables: [TABLE, resetTable],
    // Either table may be missing (an app without the account pages has only the reset links).
    requires: [],
    async list(userId, db) {
      const items: InventoryItem[] = []
      if (inventory.migrated.has(TABLE)) {
        const found = await rows(userId, db).select('id', 'purpose', 'created_at')
        for (const row of found) items.push({ kind: 'mailed_links', id: String(row.id), label: String(row.purpose), createdAt: storedDate(row.created_at) })
      }
      const address = await resetAddress(userId, db)
      const row = address === null ? undefined : await db(resetTable).where('email', address).first('created_at')
      if (row) items.push({ kind: 'mailed_links', id: 'reset', label: 'password_reset', createdAt: storedDate(row.created_at) })
      return items
    },
    async revokeOne(userId, id, db) {
      if (id === 'reset') return deleteResets(userId, db)
      if (!ROW_ID.test(id) || !inventory.migrated.has(TABLE)) return 0
      return rows(userId, db).where('id', Number(id)).delete()
    },
    async revokeAll(userId, db) {
      let count = 0
      if (inventory.migrated.has(TABLE)) count += Number(await rows(userId, db).delete())
      count += await deleteResets(userId, db)
      return count
    },
  }
}
