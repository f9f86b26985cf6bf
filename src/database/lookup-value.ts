/**
 * @module database/lookup-value
 * The guard every model lookup (`find`, `findBy`, `where`) puts on its value, because lookups are
 * fed user input: `undefined`/`null` and strings containing NUL match nothing (never the rows
 * whose column is NULL; PostgreSQL would reject the NUL with an error); arrays
 * and objects match nothing (mysql2 would expand `{a: 1}` into SQL); and on MySQL numbers are
 * bound as strings, so `email = 0` cannot match every e-mail through MySQL's string-to-number
 * coercion.
 */
import type { Knex } from 'knex'
import type { DatabaseDriver } from './database-manager.js'

/** Returned by `lookupValue` when the lookup must match no row. */
export const NO_MATCH: unique symbol = Symbol('trowel.database.noMatch')

/** The canonical driver behind a knex instance, transaction or query builder. */
export function driverOf(knex: Pick<Knex, 'client'>): DatabaseDriver {
  const dialect = String((knex.client as { dialect?: unknown }).dialect ?? '')
  if (dialect.startsWith('postgres') || dialect === 'pg') return 'postgres'
  if (dialect.startsWith('mysql')) return 'mysql'
  return 'sqlite'
}

/** The value to bind for an equality lookup, or `NO_MATCH`. */
export function lookupValue(value: unknown, driver: DatabaseDriver): Knex.Value | typeof NO_MATCH {
  if (value === undefined || value === null) return NO_MATCH
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return NO_MATCH
    return driver === 'mysql' ? String(value) : value
  }
  if (typeof value === 'bigint') return driver === 'sqlite' ? (value as unknown as Knex.Value) : value.toString()
  // PostgreSQL refuses NUL in text with an error; no stored value can match one anywhere.
  if (typeof value === 'string' && value.includes('\u0000')) return NO_MATCH
  if (typeof value === 'string' || typeof value === 'boolean' || value instanceof Date || Buffer.isBuffer(value)) return value
  return NO_MATCH
}

/**
 * True for PostgreSQL's refusal of a lookup value that cannot be of the column's type (`'abc'`
 * for an integer id, a number out of range, a malformed date). SQLite and MySQL simply match no
 * row there, so reads treat this as "no match" on PostgreSQL too.
 */
export function isLookupTypeMismatch(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === '22P02' || code === '22003' || code === '22007' || code === '22008'
}

/**
 * MySQL compares a string with a numeric column as numbers, so `id = '1abc'`, `id = ' 1'` or
 * `id = "1' OR '1'='1"` all match the row with id 1. A row found that way is not a match: a
 * numeric column matches a string only when the string is the number's own spelling. Other
 * drivers never coerce like this (SQLite matches no row, PostgreSQL refuses the value).
 */
export function coercedMatch(found: unknown, bound: Knex.Value, driver: DatabaseDriver): boolean {
  return driver === 'mysql' && typeof bound === 'string' && (typeof found === 'number' || typeof found === 'bigint') && String(found) !== bound
}
