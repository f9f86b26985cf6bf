import { Migration } from 'trowel'

/**
 * The account features: `users.email_verified_at`, "remember me" tokens, and the single-use links
 * mailed to users (e-mail verification, e-mail change, "This wasn't me"). Every token is stored as
 * its SHA-256 only.
 */
export default class CreateAccountTables extends Migration {
  async up() {
    if (!(await this.schema.hasColumn('users', 'email_verified_at'))) {
      await this.schema.alterTable('users', (table) => {
        table.dateTime('email_verified_at').nullable()
      })
    }
    await this.schema.createTable('remember_tokens', (table) => {
      table.increments('id')
      table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE')
      // The cookie holds `<series>.<token>`: the series names the device, the token is replaced on every use.
      table.string('series_hash', 64).notNullable().unique()
      table.string('token_hash', 64).notNullable()
      // The token it replaced: accepted from requests already under way when it was replaced (the
      // tabs of one browser restoring at once), proof of theft from any later one.
      table.string('previous_hash', 64).nullable()
      // Epoch milliseconds, exact on every database.
      table.bigInteger('rotated_at').nullable()
      // The web login (login_tokens.token_hash) this device holds now: ended with the series.
      table.string('login_token_hash', 64).nullable()
      table.dateTime('created_at').notNullable()
      table.dateTime('expires_at').notNullable()
      table.index(['user_id'])
      table.index(['expires_at'])
    })
    await this.schema.createTable('user_tokens', (table) => {
      table.increments('id')
      table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE')
      // verify_email (the address in `email`) or secure ("This wasn't me").
      table.string('purpose', 32).notNullable()
      table.string('token_hash', 64).notNullable().unique()
      table.string('email').nullable()
      table.dateTime('created_at').notNullable()
      table.dateTime('expires_at').notNullable()
      table.index(['user_id', 'purpose'])
      table.index(['expires_at'])
    })
  }

  async down() {
    await this.schema.dropTableIfExists('user_tokens')
    await this.schema.dropTableIfExists('remember_tokens')
    if (await this.schema.hasColumn('users', 'email_verified_at')) {
      await this.schema.alterTable('users', (table) => {
        table.dropColumn('email_verified_at')
      })
    }
  }
}
