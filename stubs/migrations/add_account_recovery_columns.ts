import { Migration } from 'trowel'

/**
 * "This wasn't me" (docs/accounts.md): `users.password_reset_required_at`, set when the owner
 * reports that someone else used the account (the current password stops working until a reset
 * sets a new one), and `user_tokens.details`, what a "This wasn't me" link reports (JSON: when
 * the event happened and the item it added), so that using the link removes that item and every
 * way in added since.
 */
export default class AddAccountRecoveryColumns extends Migration {
  async up() {
    if (!(await this.schema.hasColumn('users', 'password_reset_required_at'))) {
      await this.schema.alterTable('users', (table) => {
        table.dateTime('password_reset_required_at').nullable()
      })
    }
    if ((await this.schema.hasTable('user_tokens')) && !(await this.schema.hasColumn('user_tokens', 'details'))) {
      await this.schema.alterTable('user_tokens', (table) => {
        table.text('details').nullable()
      })
    }
  }

  async down() {
    if ((await this.schema.hasTable('user_tokens')) && (await this.schema.hasColumn('user_tokens', 'details'))) {
      await this.schema.alterTable('user_tokens', (table) => {
        table.dropColumn('details')
      })
    }
    if (await this.schema.hasColumn('users', 'password_reset_required_at')) {
      await this.schema.alterTable('users', (table) => {
        table.dropColumn('password_reset_required_at')
      })
    }
  }
}
