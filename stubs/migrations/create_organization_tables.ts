import { Migration } from 'trowel'

/**
 * Organisations (`organizations` feature): the organisations, their members with a role each (the
 * pair is the primary key: a member's role is one indexed read), and the invitations mailed to
 * join them (the token's SHA-256 only; single use, expiring, revocable).
 */
export default class CreateOrganizationTables extends Migration {
  async up() {
    await this.schema.createTable('organizations', (table) => {
      table.increments('id')
      table.string('name', 120).notNullable()
      table.string('slug', 48).notNullable().unique()
      table.dateTime('created_at').notNullable()
    })
    await this.schema.createTable('organization_members', (table) => {
      table.integer('organization_id').unsigned().notNullable().references('id').inTable('organizations').onDelete('CASCADE')
      table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE')
      table.string('role', 32).notNullable()
      table.dateTime('created_at').notNullable()
      table.primary(['organization_id', 'user_id'])
      // A user's organisations.
      table.index(['user_id'])
    })
    await this.schema.createTable('organization_invitations', (table) => {
      table.increments('id')
      table.integer('organization_id').unsigned().notNullable().references('id').inTable('organizations').onDelete('CASCADE')
      // The normalised address it was mailed to.
      table.string('email', 255).notNullable()
      table.string('role', 32).notNullable()
      table.string('token_hash', 64).notNullable().unique()
      table.integer('invited_by').unsigned().nullable().references('id').inTable('users').onDelete('CASCADE')
      table.dateTime('created_at').notNullable()
      table.dateTime('expires_at').notNullable()
      table.dateTime('accepted_at').nullable()
      table.dateTime('revoked_at').nullable()
      table.index(['organization_id', 'email'])
      table.index(['invited_by'])
      table.index(['expires_at'])
    })
  }

  async down() {
    await this.schema.dropTableIfExists('organization_invitations')
    await this.schema.dropTableIfExists('organization_members')
    await this.schema.dropTableIfExists('organizations')
  }
}
