import { Migration } from 'trowel'

/**
 * Two factors and passkeys: the TOTP secret on `users` (encrypted with APP_KEY), the recovery codes
 * (SHA-256 only, a row each, deleted when used), the passkeys (public keys, counters, backup
 * flags) and the short-lived single-use challenges of passkey ceremonies and API second steps
 * (SHA-256 only).
 */
export default class CreateTwoFactorTables extends Migration {
  async up() {
    if (!(await this.schema.hasColumn('users', 'two_factor_secret'))) {
      await this.schema.alterTable('users', (table) => {
        table.text('two_factor_secret').nullable()
        // Null until the first code from the authenticator app is accepted.
        table.dateTime('two_factor_confirmed_at').nullable()
        // The last accepted TOTP time step: a code is never accepted twice.
        table.bigInteger('two_factor_last_step').nullable()
      })
    }
    await this.schema.createTable('two_factor_recovery_codes', (table) => {
      table.increments('id')
      table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE')
      table.string('code_hash', 64).notNullable().unique()
      table.dateTime('created_at').notNullable()
      table.index(['user_id'])
    })
    await this.schema.createTable('passkeys', (table) => {
      table.increments('id')
      table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE')
      // base64url, as the browser sends it.
      table.string('credential_id', 512).notNullable().unique()
      // The COSE public key, base64url.
      table.text('public_key').notNullable()
      table.bigInteger('counter').notNullable().defaultTo(0)
      table.string('transports', 255).nullable()
      // singleDevice or multiDevice, and whether it is backed up (synced) now.
      table.string('device_type', 32).notNullable()
      table.boolean('backed_up').notNullable().defaultTo(false)
      table.string('aaguid', 36).nullable()
      table.string('name', 100).notNullable()
      table.dateTime('created_at').notNullable()
      table.dateTime('last_used_at').nullable()
      table.index(['user_id'])
    })
    await this.schema.createTable('auth_challenges', (table) => {
      table.increments('id')
      // passkey_register, passkey_login or mfa (the API's second step).
      table.string('purpose', 32).notNullable()
      table.string('challenge_hash', 64).notNullable().unique()
      table.integer('user_id').unsigned().nullable().references('id').inTable('users').onDelete('CASCADE')
      table.dateTime('created_at').notNullable()
      table.dateTime('expires_at').notNullable()
      table.index(['expires_at'])
    })
  }

  async down() {
    await this.schema.dropTableIfExists('auth_challenges')
    await this.schema.dropTableIfExists('passkeys')
    await this.schema.dropTableIfExists('two_factor_recovery_codes')
    if (await this.schema.hasColumn('users', 'two_factor_secret')) {
      await this.schema.alterTable('users', (table) => {
        table.dropColumn('two_factor_last_step')
        table.dropColumn('two_factor_confirmed_at')
        table.dropColumn('two_factor_secret')
      })
    }
  }
}
