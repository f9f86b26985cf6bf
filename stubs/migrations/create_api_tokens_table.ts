import { Migration } from 'trowel'

/**
 * API token families (`DRIVERS.jwt.store = 'table'` in config/api.ts): one row per JWT issued,
 * holding only its SHA-256. Every login through the API starts a family (one per device); each
 * reauth adds the next row of the family and marks the previous one `replaced_by_hash`. A
 * replaced token that comes back after `reuse_window` seconds revokes the whole family
 * (`revoked_at`). Deleting the user deletes their rows.
 */
export default class CreateApiTokensTable extends Migration {
  async up() {
    if (await this.schema.hasTable('api_tokens')) return
    await this.schema.createTable('api_tokens', (table) => {
      table.increments('id')
      // Random (16 bytes, base64url), the token's `fid` claim: every token of one device shares it.
      table.string('family_id', 32).notNullable().index()
      table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE')
      table.string('token_hash', 64).notNullable().unique()
      // Set when a reauth replaced this token; null while it is its family's current one.
      table.string('replaced_by_hash', 64).nullable()
      table.dateTime('replaced_at', { precision: 3 }).nullable()
      // The successor, encrypted with APP_KEY, kept for `reuse_window` seconds only so that a
      // retried reauth receives the same token (cleared by a later rotation
      // of the family once the window has passed, by a revocation, and by auth:prune after an hour).
      table.text('successor').nullable()
      // The client in plain words ("Firefox 132 on Windows", "curl/8.5.0") and the address it came from.
      table.string('device', 255).nullable()
      table.string('ip', 45).nullable()
      table.dateTime('created_at', { precision: 3 }).notNullable()
      table.dateTime('last_used_at', { precision: 3 }).nullable()
      // When the family began (its first login), and when it ends (`max_age`; null: never).
      table.dateTime('family_created_at', { precision: 3 }).notNullable()
      table.dateTime('expires_at', { precision: 3 }).nullable()
      // The whole family is revoked at once (logout, reuse, password change, devices page).
      table.dateTime('revoked_at', { precision: 3 }).nullable()
      table.index(['user_id'])
    })
  }

  async down() {
    await this.schema.dropTableIfExists('api_tokens')
  }
}
