import { Migration } from 'trowel'

export default class CreateUsersTable extends Migration {
  async up() {
    await this.schema.createTable('users', (table) => {
      table.increments('id')
      table.string('name').notNullable()
      table.string('email').notNullable().unique()
      table.string('password').notNullable()
      table.string('remember_token').nullable()
      // Nullable DATETIME (TIMESTAMPTZ on PostgreSQL) without database defaults: the model sets both.
      table.timestamps()
    })
  }

  async down() {
    await this.schema.dropTableIfExists('users')
  }
}
