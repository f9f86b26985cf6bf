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

export function whereCaseless<Q extends Knex.QueryBuilder>(query: Q, column: string, value: string): Q {
  if (driverOf(query) === 'mysql') query.where(column, value)
  return query.whereRaw('lower(??) = lower(?)', [column, value]) as Q
}
