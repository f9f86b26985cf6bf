import { Migration } from 'trowel'

/**
 * Personal access tokens (`trw_<id>_<secret><checksum>`, for scripts and CI): one row per token,
 * holding only the SHA-256 of its value. Deleting a row revokes the token; deleting the user
 * deletes their tokens.
 */
export default class CreatePersonalAccessTokensTable extends Migration {
  async up() {
    if (await this.schema.hasTable('personal_access_tokens')) return
    await this.schema.createTable('personal_access_tokens', (table) => {
      table.increments('id')
      table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE')
      // What it is for ("deploy script"), shown on /account/tokens.
      table.string('name', 100).notNullable()
      table.string('token_hash', 64).notNullable().unique()
      // A JSON array of ability names (`["posts:read"]`, `["*"]` for all).
      table.text('abilities').notNullable()
      // Moved on at most once a minute per token.
      table.dateTime('last_used_at').nullable()
      // Null: never expires.
      table.dateTime('expires_at').nullable()
      table.dateTime('created_at').notNullable()
      table.index(['user_id'])
    })
  }

  async down() {
    await this.schema.dropTableIfExists('personal_access_tokens')
  }
}
