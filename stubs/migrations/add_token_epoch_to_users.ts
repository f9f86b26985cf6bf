import { Migration } from 'trowel'

/**
 * `DRIVERS.jwt.revocation = 'epoch'` in config/api.ts: each user's token epoch. Every API token
 * carries the epoch of its user when issued (the `uep` claim); raising it (password reset or
 * change, "log out other devices", "This wasn't me", account deletion) refuses all their tokens.
 * `token_epoch_at` is when it was last raised (milliseconds since 1970): processes without Redis
 * read the recently raised rows through its index. A deleted user's raise is kept in
 * `token_epoch_deletions`, since their row is gone.
 */
export default class AddTokenEpochToUsers extends Migration {
  async up() {
    if (!(await this.schema.hasColumn('users', 'token_epoch'))) {
      await this.schema.alterTable('users', (table) => {
        table.integer('token_epoch').notNullable().defaultTo(0)
        table.bigInteger('token_epoch_at').nullable()
        table.index(['token_epoch_at'], 'users_token_epoch_at_index')
      })
    }
    if (!(await this.schema.hasTable('token_epoch_deletions'))) {
      await this.schema.createTable('token_epoch_deletions', (table) => {
        table.increments('id')
        // No foreign key: the user row is deleted right after.
        table.string('user_id', 64).notNullable()
        table.bigInteger('raised_at').notNullable()
        table.index(['raised_at'])
      })
    }
  }

  async down() {
    await this.schema.dropTableIfExists('token_epoch_deletions')
    if (!(await this.schema.hasColumn('users', 'token_epoch'))) return
    await this.schema.alterTable('users', (table) => {
      table.dropIndex(['token_epoch_at'], 'users_token_epoch_at_index')
      table.dropColumn('token_epoch_at')
      table.dropColumn('token_epoch')
    })
  }
}
