import { Migration } from 'trowel'

/**
 * `DRIVERS.jwt.revocation = 'epoch'` in config/api.ts: each user's token epoch. Every API token
 * carries the epoch of its user when issued (the `uep` claim); raising it (password reset or
 * change, "log out other devices", "This wasn't me", account deletion) refuses all their tokens.
 * `token_epoch_at` is when it was last raised (milliseconds since 1970): processes without Redis
 * read the recently raised rows through its index.
 */
export default class AddTokenEpochToUsers extends Migration {
  async up() {
    if (await this.schema.hasColumn('users', 'token_epoch')) return
    await this.schema.alterTable('users', (table) => {
      table.integer('token_epoch').notNullable().defaultTo(0)
      table.bigInteger('token_epoch_at').nullable()
      table.index(['token_epoch_at'], 'users_token_epoch_at_index')
    })
  }

  async down() {
    if (!(await this.schema.hasColumn('users', 'token_epoch'))) return
    await this.schema.alterTable('users', (table) => {
      table.dropIndex(['token_epoch_at'], 'users_token_epoch_at_index')
      table.dropColumn('token_epoch_at')
      table.dropColumn('token_epoch')
    })
  }
}
