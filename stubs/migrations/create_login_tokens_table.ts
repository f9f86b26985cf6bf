import { Migration } from 'trowel'

/** One row per logged-in device of the web guard; the cookie holds the token, this table its SHA-256. */
export default class CreateLoginTokensTable extends Migration {
  async up() {
    await this.schema.createTable('login_tokens', (table) => {
      table.increments('id')
      table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE')
      table.string('token_hash', 64).notNullable().unique()
      table.string('user_agent').nullable()
      table.string('ip').nullable()
      table.dateTime('created_at').nullable()
      table.dateTime('last_used_at').nullable()
      table.index(['user_id'])
    })
  }

  async down() {
    await this.schema.dropTableIfExists('login_tokens')
  }
}
