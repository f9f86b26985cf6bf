/**
 * @module auth/inventory/web-kinds
 * The web guard's kinds: `logins` (`login_tokens`, one row per browser) and `remember_tokens`
 * ("remember me", one series per browser, ended with its login). A revocation that keeps this
 * browser's login (`keepLoginHash`: password change, "log out other devices") spares its login and
 * its "remember me" series.
 */
import { ALL_REASONS, type AuthInventory, type InventoryKind } from './index.js'
import { tableKind } from './table-kind.js'

const LOGINS = 'login_tokens'
const REMEMBER = 'remember_tokens'
/** A positive whole number that fits every driver's integer id. */
const ROW_ID = /^[1-9][0-9]{0,14}$/

/**
 * The web logins: every reason ends them; a password change and "log out other devices" keep this
 * browser's. Ending one login ends its "remember me" series too (when the app has that table).
 */
export function loginsKind(inventory: AuthInventory): InventoryKind {
  return {
    ...tableKind({
      name: 'logins',
      table: LOGINS,
      endsOn: ALL_REASONS,
      columns: ['user_agent'],
      label: (row) => String(row.user_agent ?? 'A browser'),
      narrowAll: (rows, { keepLoginHash }) => (keepLoginHash ? rows.whereNot('token_hash', keepLoginHash) : rows),
    }),
    async revokeOne(userId, id, db) {
      if (!ROW_ID.test(id)) return 0
      const row = await db(LOGINS).where({ id: Number(id), user_id: userId as string | number }).first('token_hash')
      if (!row) return 0
      // Of concurrent calls, only the one whose delete removed the row counts it.
      const deleted = Number(await db(LOGINS).where({ id: Number(id), user_id: userId as string | number, token_hash: row.token_hash }).delete())
      if (deleted > 0 && inventory.migrated.has(REMEMBER)) await db(REMEMBER).where({ user_id: userId as string | number, login_token_hash: row.token_hash }).delete()
      return deleted
    },
  }
}

/** "Remember me" series: a revocation that keeps this browser's login keeps its series too. */
export function rememberTokensKind(): InventoryKind {
  return tableKind({
    name: 'remember_tokens',
    table: REMEMBER,
    endsOn: ALL_REASONS,
    label: () => 'Remember me',
    narrowAll: (rows, { keepLoginHash }) => (keepLoginHash ? rows.where((q) => q.whereNull('login_token_hash').orWhereNot('login_token_hash', keepLoginHash)) : rows),
  })
}
