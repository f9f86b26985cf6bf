import { Migration } from 'trowel'

export default class CreateUsersTable extends Migration {
  async up() {
    await this.schema.createTable('users', (table) => {
      table.increments('id')
      table.string('name').notNullable()
      table.string('email').notNullable().unique()
      // Null for an account made by an e-mailed sign-in link (no password yet).
      table.string('password').nullable()
      table.string('remember_token').nullable()
      // Nullable DATETIME (TIMESTAMPTZ on PostgreSQL) without database defaults: the model sets both.
      table.timestamps()
    })
    // E-mails are compared without case (login, reset, registration), so they are unique without
    // case too. MySQL/MariaDB's default collations already compare without case.
    if (this.driver !== 'mysql') {
      const users = 'users'
      await this.db.raw('CREATE UNIQUE INDEX ?? ON ?? (lower(??))', [`${users}_email_lower_unique`, users, 'email'])
    }
  }

  async down() {
    await this.schema.dropTableIfExists('users')
  }
}
