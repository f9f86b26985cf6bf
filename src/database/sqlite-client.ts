/**
 * @module database/sqlite-client
 * The knex client for SQLite, loading the better-sqlite3 build that works on the running Node:
 * - Node 22 and newer: better-sqlite3 13 (installed as `better-sqlite3-napi`), built on Node-API
 *   with prebuilt binaries in the npm package. better-sqlite3 12 aborts the process on Node
 *   24.19+ when the garbage collector frees a statement (its ObjectWrap meets Node's new
 *   cleanup-hook check), and its maintainers will not change 12.
 * - Node 20: better-sqlite3 12, compiled from source on install (13 needs Node 22 and crashes on 20).
 * Both have the same JavaScript API, so nothing else changes. Use it as knex's `client`:
 * `knex({ client: SqliteClient, connection: { filename }, useNullAsDefault: true })`.
 */
import { createRequire } from 'node:module'
import type { Knex } from 'knex'

const require = createRequire(import.meta.url)

/** The package name of the better-sqlite3 build for this Node (`process.versions.node` by default). */
export function sqliteDriverPackage(nodeVersion: string = process.versions.node): string {
  const major = Number(nodeVersion.split('.')[0])
  return major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3'
}

/** The better-sqlite3 `Database` constructor for this Node. */
export function loadSqliteDriver(): unknown {
  return require(sqliteDriverPackage())
}

const BetterSqlite3Client = require('knex/lib/dialects/better-sqlite3/index.js') as new (config: Knex.Config) => object

/** knex's better-sqlite3 client (driver name `better-sqlite3`), with the driver chosen above. */
class TrowelSqliteClient extends BetterSqlite3Client {
  _driver(): unknown {
    return loadSqliteDriver()
  }
}

/** The value for knex's `client` option. */
export const SqliteClient = TrowelSqliteClient as unknown as NonNullable<Knex.Config['client']>
