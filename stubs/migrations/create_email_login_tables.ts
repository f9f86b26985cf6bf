import { Migration } from 'trowel'

/**
 * Sign-in by e-mail: each address's live link and code (one row per address, replaced by a new
 * mail, deleted when used). The link's SHA-256 and the code's HMAC under APP_KEY only. New apps'
 * `users.password` takes null (an account made or claimed by e-mail has none); in an app whose
 * column refuses null, a claimed account gets a random password nobody knows instead.
 */
export default class CreateEmailLoginTables extends Migration {
  async up() {
    await this.schema.createTable('email_login_tokens', (table) => {
      table.increments('id')
      // The normalised address the mail went to.
      table.string('email', 255).notNullable().unique()
      // Null when the first use creates the account (`GUARDS.email_login.register`).
      table.integer('user_id').unsigned().nullable().references('id').inTable('users').onDelete('CASCADE')
      table.string('token_hash', 64).notNullable().unique()
      // Null once its answers are spent (the link still works).
      table.string('code_hash', 64).nullable()
      table.dateTime('created_at').notNullable()
      table.dateTime('expires_at').notNullable()
      table.index(['user_id'])
      table.index(['expires_at'])
    })
  }

  async down() {
    await this.schema.dropTableIfExists('email_login_tokens')
  }
}
