/**
 * @module auth/accounts/password-lock
 * The password lock of "This wasn't me": once the owner reports that someone else used the
 * account, the current password (which that someone may know) stops working until a password
 * reset or change sets a new one. Stored as `users.password_reset_required_at` (the
 * `add_account_recovery_columns` migration), so it survives restarts and holds in every process.
 *
 * A login with the locked password is refused after the password check (a wrong password fails
 * as usual, with the same budgets): the web form answers with a message pointing to the e-mailed
 * reset link, JSON and `POST /api/auth` with 401 `E_PASSWORD_RESET_REQUIRED`. An app that has
 * not run the migration has no lock (nothing is written, nothing is refused): whether it has the
 * column comes from the tables read at boot (`MigratedTables`, the inventory's `migrated`).
 */
import type { Knex } from 'knex'
import type { MigratedTables } from '../inventory/migrated-tables.js'

/** The users column holding when the lock was set (null: no lock). */
export const PASSWORD_LOCK_COLUMN = 'password_reset_required_at'

/**
 * Whether `table` has the lock column. Pass the transaction the caller is in: should the tables
 * not have been read yet, on SQLite (one connection) reading them on another would wait forever.
 */
export async function hasPasswordLock(table: string, migrated: MigratedTables, db: Knex | Knex.Transaction): Promise<boolean> {
  await migrated.ready(db)
  return migrated.hasColumn(table, PASSWORD_LOCK_COLUMN)
}

/** True when the user (a model with its attributes as properties) must reset the password first. */
export function isPasswordLocked(user: unknown): boolean {
  const value = (user as Record<string, unknown> | null)?.[PASSWORD_LOCK_COLUMN]
  return value !== null && value !== undefined && value !== ''
}

interface UserTable {
  getTable(): string
  getPrimaryKey(): string
}

/** Sets the lock (in the caller's transaction); false when the app's users table has no column for it. */
export async function lockPassword(model: UserTable, userId: unknown, migrated: MigratedTables, trx: Knex.Transaction): Promise<boolean> {
  const table = model.getTable()
  if (!(await hasPasswordLock(table, migrated, trx))) return false
  await trx(table)
    .where(model.getPrimaryKey(), userId as string | number)
    .update({ [PASSWORD_LOCK_COLUMN]: new Date() })
  return true
}

/** Lifts the lock: a new password was set (by a reset or a change). */
export async function liftPasswordLock(model: UserTable, userId: unknown, migrated: MigratedTables, trx: Knex | Knex.Transaction): Promise<void> {
  const table = model.getTable()
  if (!(await hasPasswordLock(table, migrated, trx))) return
  await trx(table)
    .where(model.getPrimaryKey(), userId as string | number)
    .whereNotNull(PASSWORD_LOCK_COLUMN)
    .update({ [PASSWORD_LOCK_COLUMN]: null })
}
