/**
 * @module auth/inventory/web-kinds
 * The web guard's kinds: `logins` (`login_tokens`, one row per browser) and `remember_tokens`
 * ("remember me", one series per browser, ended with its login). A revocation that keeps this
 * browser's login (`keepLoginHash`: password change, "log out other devices") spares its login and
 * its "remember me" series.
 */
import type { Knex } from 'knex'
import { ALL_REASONS, storedDate, type AuthInventory, type InventoryItem, type InventoryKind } from './index.js'

const LOGINS = 'login_tokens'
const REMEMBER = 'remember_tokens'
/** `user_tokens.purpose` of a trusted browser (two-factor/trusted-devices): not a mailed link. */
export const TRUST_PURPOSE = 'two_factor_trust'
/** A positive whole number that fits every driver's integer id. */
const ROW_ID = /^[1-9][0-9]{0,14}$/

type Db = Knex | Knex.Transaction

/**
 * The web logins: every reason ends them; a password change and "log out other devices" keep this
 * browser's. Ending one login ends its "remember me" series too.
 */
export function loginsKind(inventory: AuthInventory): InventoryKind {
  return {
    name: 'logins',
    endsOn: ALL_REASONS,
    tables: [LOGINS],
    async list(userId, db) {
      const rows = await db(LOGINS).where('user_id', userId as string | number).select('id', 'user_agent', 'created_at')
      return rows.map((row): InventoryItem => ({ kind: 'logins', id: String(row.id), label: String(row.user_agent ?? 'A browser'), createdAt: storedDate(row.created_at) }))
    },
    async revokeOne(userId, id, db) {
      if (!ROW_ID.test(id)) return 0
      const row = await db(LOGINS).where({ id: Number(id), user_id: userId as string | number }).first('token_hash')
      if (!row) return 0
      // Of concurrent calls, only the one whose delete removed the row counts it.
      const deleted = Number(await db(LOGINS).where({ id: Number(id), user_id: userId as string | number, token_hash: row.token_hash }).delete())
      if (deleted > 0 && (await inventory.hasTable(REMEMBER, db))) await db(REMEMBER).where({ user_id: userId as string | number, login_token_hash: row.token_hash }).delete()
      return deleted
    },
    async revokeAll(userId, db, { keepLoginHash }) {
      const query = db(LOGINS).where('user_id', userId as string | number)
      if (keepLoginHash) query.whereNot('token_hash', keepLoginHash)
      return query.delete()
    },
  }
}

/** "Remember me" series (apps migrated before the feature may lack the table: one cached check). */
export function rememberTokensKind(inventory: AuthInventory): InventoryKind {
  const has = (db: Db) => inventory.hasTable(REMEMBER, db)
  return {
    name: 'remember_tokens',
    endsOn: ALL_REASONS,
    tables: [REMEMBER],
    async list(userId, db) {
      if (!(await has(db))) return []
      const rows = await db(REMEMBER).where('user_id', userId as string | number).select('id', 'created_at')
      return rows.map((row): InventoryItem => ({ kind: 'remember_tokens', id: String(row.id), label: 'Remember me', createdAt: storedDate(row.created_at) }))
    },
    async revokeOne(userId, id, db) {
      if (!ROW_ID.test(id) || !(await has(db))) return 0
      return db(REMEMBER).where({ id: Number(id), user_id: userId as string | number }).delete()
    },
    async revokeAll(userId, db, { keepLoginHash }) {
      if (!(await has(db))) return 0
      const query = db(REMEMBER).where('user_id', userId as string | number)
      if (keepLoginHash) query.where((q) => q.whereNull('login_token_hash').orWhereNot('login_token_hash', keepLoginHash))
      return query.delete()
    },
  }
}
