/**
 * @module session/sessions-table-migration
 * The `sessions` table the `database` driver needs. Call it from a migration:
 *
 * @example
 * export default class CreateSessionsTable extends Migration {
 *   async up() { await sessionsTableMigration(this.schema) }
 *   async down() { await this.schema.dropTableIfExists('sessions') }
 * }
 */
import type { Knex } from 'knex'

/** Creates the sessions table: `id` (primary), `payload`, `last_activity`, `expires_at` (ms since epoch). */
export function sessionsTableMigration(schema: Knex.SchemaBuilder, table = 'sessions'): Knex.SchemaBuilder {
  return schema.createTable(table, (t) => {
    t.string('id', 128).primary()
    t.text('payload').notNullable()
    t.bigInteger('last_activity').notNullable()
    t.bigInteger('expires_at').notNullable().index()
  })
}
