import { Migration } from 'trowel'

/** The audit log: one row per auth event (login, failure, logout, reset, token...), never a secret. */
export default class CreateAuthEventsTable extends Migration {
  async up() {
    await this.schema.createTable('auth_events', (table) => {
      table.bigIncrements('id')
      table.integer('user_id').unsigned().nullable()
      table.string('type', 64).notNullable()
      table.string('ip', 64).nullable()
      table.string('user_agent', 255).nullable()
      table.text('details').nullable()
      table.dateTime('created_at').notNullable()
      table.index(['user_id', 'created_at'])
      table.index(['type', 'created_at'])
      table.index(['created_at'])
    })
  }

  async down() {
    await this.schema.dropTableIfExists('auth_events')
  }
}
