import { Migration } from 'trowel'

export default class CreatePasswordResetsTable extends Migration {
  async up() {
    await this.schema.createTable('password_resets', (table) => {
      table.string('email').notNullable().index()
      // The SHA-256 hex digest of the reset token; the token itself is never stored.
      table.string('token', 64).notNullable().unique()
      table.dateTime('expires_at').nullable()
      table.dateTime('created_at').nullable()
    })
  }

  async down() {
    await this.schema.dropTableIfExists('password_resets')
  }
}
