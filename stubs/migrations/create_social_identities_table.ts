import { Migration } from 'trowel'

/**
 * Social login (docs/social-login.md): `social_identities`, one row per account linked at a
 * provider, keyed by `(provider, subject)` and at most one per provider for a user; provider
 * tokens only with `store_tokens: true`, encrypted with APP_KEY. `social_pending`: unfinished
 * sign-ins (the state of a redirect, a link-up waiting for a login, an address waiting for its
 * mailed link), each under the SHA-256 of its secret and used once. `users.password` takes null
 * (an account made from a provider has none).
 */
export default class CreateSocialIdentitiesTable extends Migration {
  async up() {
    await this.schema.createTable('social_identities', (table) => {
      table.increments('id')
      table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE')
      table.string('provider', 64).notNullable()
      // The provider's stable id of the account (`sub`; GitHub's numeric id), never an e-mail.
      table.string('subject', 255).notNullable()
      table.string('email', 255).nullable()
      table.text('access_token').nullable()
      table.text('refresh_token').nullable()
      table.dateTime('created_at').notNullable()
      table.dateTime('last_used_at').nullable()
      table.unique(['provider', 'subject'])
      table.unique(['user_id', 'provider'])
    })
    await this.schema.createTable('social_pending', (table) => {
      table.increments('id')
      // state, link (a link-up waiting for a login), profile (an address to ask for), email (a mailed link).
      table.string('kind', 16).notNullable()
      table.string('token_hash', 64).notNullable().unique()
      // SHA-256 of the browser's trowel_oauth cookie: another browser's state is refused.
      table.string('browser_hash', 64).nullable()
      table.string('provider', 64).notNullable()
      table.string('intent', 16).notNullable()
      table.integer('user_id').unsigned().nullable().references('id').inTable('users').onDelete('CASCADE')
      table.text('data').nullable()
      table.dateTime('created_at').notNullable()
      table.dateTime('expires_at').notNullable()
      table.index(['user_id'])
      table.index(['expires_at'])
    })
    const column = await this.schema.hasColumn('users', 'password')
    if (column) {
      const info = (await this.db('users').columnInfo('password')) as { nullable?: boolean }
      if (info && info.nullable === false) {
        await this.schema.alterTable('users', (table) => {
          table.string('password').nullable().alter()
        })
      }
    }
  }

  async down() {
    await this.schema.dropTableIfExists('social_pending')
    await this.schema.dropTableIfExists('social_identities')
  }
}
