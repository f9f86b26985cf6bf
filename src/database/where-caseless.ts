/**
 * @module database/where-caseless
 * `whereCaseless(query, column, value)`: rows whose `column` equals `value` without regard to
 * case, folded by the database's own `lower()` on both sides (the function of the users table's
 * `lower(email)` unique index on SQLite and PostgreSQL).
 *
 * On MySQL/MariaDB no such index exists (the column's case-insensitive collation, the default,
 * makes the plain unique index caseless already), and `lower(email) = lower(?)` alone cannot use
 * an index: every login would scan the users table. There the query also says `email = ?`, which
 * the collation answers from the index; `lower()` then keeps the match exactly as strict as on
 * the other databases (a collation such as utf8mb4_general_ci also equates `a` and `á`).
 */
import type { Knex } from 'knex'
import { driverOf } from './lookup-value.js'
import { normalizeEmail } from '../support/normalize-email.js'

export function whereCaseless<Q extends Knex.QueryBuilder>(query: Q, column: string, value: string): Q {
  if (driverOf(query) === 'mysql') query.where(column, value)
  return query.whereRaw('lower(??) = lower(?)', [column, value]) as Q
}

/**
 * `whereEmail(query, column, value)`: rows whose `column` is the address `value`, compared the
 * way accounts are: by `normalizeEmail(value)` (trimmed, NFC, lower-cased), which is what
 * registration stores, and, for rows written before addresses were normalised, by the address
 * as typed (trimmed), both folded by the database's `lower()`:
 *
 *     lower(email) IN (lower(:normalized), lower(:typed))
 *
 * Why both: SQLite's `lower()` folds ASCII only, and old rows may hold capitals or decomposed
 * (NFD) accents. A normalised value alone would miss a legacy row `ÅSA@x.test` on SQLite
 * (`lower()` keeps the `Å`) or a row stored decomposed; the typed value alone would miss a row
 * stored normalised when the user types another spelling. Both sides go through the same
 * `lower()` as the `lower(email)` unique index, so the look-up stays one index probe (an `IN`
 * of two values), and rows written normalised always match whatever `lower()` folds. When the
 * two values reach two different legacy rows (possible on SQLite only, whose index let both in),
 * the row holding the normalised spelling comes first.
 *
 * On MySQL/MariaDB `email IN (...)` is added for the collation's index, as in `whereCaseless`.
 */
export function whereEmail<Q extends Knex.QueryBuilder>(query: Q, column: string, value: string): Q {
  const typed = value.trim()
  const normalized = normalizeEmail(typed)
  if (driverOf(query) === 'mysql') query.whereIn(column, normalized === typed ? [typed] : [normalized, typed])
  if (normalized === typed) return query.whereRaw('lower(??) = lower(?)', [column, normalized]) as Q
  return query
    .whereRaw('lower(??) in (lower(?), lower(?))', [column, normalized, typed])
    .orderByRaw('case when lower(??) = lower(?) then 0 else 1 end', [column, normalized]) as Q
}
