/**
 * @module database/migration
 * The base class of a migration file. Each file in `databases/migrations/` default-exports a
 * subclass with `up()` and `down()`:
 *
 * ```ts
 * import { Migration } from 'trowel'
 * export default class AddApiTokenUsers extends Migration {
 *   async up() { await this.schema.table('users', (table) => { table.string('api_token').nullable() }) }
 *   async down() { await this.schema.table('users', (table) => { table.dropColumn('api_token') }) }
 * }
 * ```
 *
 * The migrator constructs it with the transaction it runs in (SQLite, PostgreSQL) or the
 * connection (MySQL, where DDL cannot be rolled back), so `this.schema` and `this.db` always
 * act inside that unit.
 */
import type { Knex } from 'knex'
import type { DatabaseDriver } from './database-manager.js'
import { driverOf } from './lookup-value.js'

export abstract class Migration {
  /** The transaction (or, on MySQL, the connection) this migration runs on. */
  readonly connection: Knex | Knex.Transaction

  constructor(connection: Knex | Knex.Transaction) {
    this.connection = connection
  }

  /** Knex's schema builder: `createTable`, `table`, `dropTable`, `hasColumn`, `raw`… */
  get schema(): Knex.SchemaBuilder {
    return this.connection.schema
  }

  /** Knex itself, for data changes: `await this.db('users').update({ active: true })`. */
  get db(): Knex {
    return this.connection
  }

  /** The database this migration runs on: `'sqlite'`, `'postgres'` or `'mysql'`. */
  get driver(): DatabaseDriver {
    return driverOf(this.connection as Knex)
  }

  abstract up(): Promise<void> | void
  abstract down(): Promise<void> | void
}
