import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { migrationClassName, migrationFileName, migrationName, newAppMigrations, nextMigrationDate, renderMigrationStub } from './migration-stubs.js'

describe('migration stubs', () => {
  it('names files YYYY_MM_DD_HHMMSS_<name>.ts in UTC, keeping the name', () => {
    const date = new Date(Date.UTC(2024, 0, 5, 9, 3, 7))
    assert.equal(migrationFileName('add_api_token_users', date), '2024_01_05_090307_add_api_token_users.ts')
    assert.equal(migrationFileName('AddApiTokenUsers', date), '2024_01_05_090307_AddApiTokenUsers.ts')
    assert.equal(migrationFileName('add-api-token users', date), '2024_01_05_090307_add_api_token_users.ts')
    assert.throws(() => migrationFileName('--', date), /not a usable migration name/)
  })

  it('reads back the name a file was made with; none without a stamp', () => {
    const file = migrationFileName('add-api token', new Date(Date.UTC(2024, 0, 5, 9, 3, 7)))
    assert.equal(migrationName(file), 'add_api_token')
    assert.equal(migrationName('2024_01_05_090307_users.js'), 'users')
    assert.equal(migrationName('users.ts'), null)
    assert.equal(migrationName('2024_01_05_users.ts'), null)
  })

  it('stamps a new migration after every existing one, even in the same second or with a clock behind', () => {
    const existing = newAppMigrations(new Date(Date.UTC(2024, 0, 5, 9, 3, 7))).map((m) => m.fileName)
    for (const now of [new Date(Date.UTC(2024, 0, 5, 9, 3, 7, 500)), new Date(Date.UTC(2023, 0, 1))]) {
      const name = migrationFileName('add_api_token_users', nextMigrationDate([...existing, 'README.md'], now))
      assert.equal(name, '2024_01_05_090310_add_api_token_users.ts')
      assert.deepEqual([...existing, name].sort().at(-1), name)
    }
    const later = new Date(Date.UTC(2024, 0, 5, 9, 3, 10))
    assert.equal(nextMigrationDate(existing, later), later)
    assert.equal(nextMigrationDate([], later), later)
  })

  it('derives PascalCase class names', () => {
    assert.equal(migrationClassName('add_api_token_users'), 'AddApiTokenUsers')
    assert.equal(migrationClassName('create-posts-table'), 'CreatePostsTable')
    assert.equal(migrationClassName('addApiToken'), 'AddApiToken')
    assert.equal(migrationClassName('2fa_codes'), 'Migration2faCodes')
  })

  it('renders blank, --table and --create stubs', () => {
    const blank = renderMigrationStub({ className: 'Blank' })
    assert.match(blank, /^import \{ Migration \} from 'trowel'\n/)
    assert.match(blank, /async up\(\) \{\n\s+\/\/\n\s+\}/)
    assert.doesNotMatch(blank, /\{\{/)
    assert.match(renderMigrationStub({ className: 'AddX', table: 'users' }), /await this\.schema\.table\('users', \(table\) => \{/)
    assert.match(renderMigrationStub({ className: 'CreateX', table: 'posts', create: true }), /createTable\('posts'[\s\S]*increments\('id'\)[\s\S]*timestamps\(\)/)
    assert.throws(() => renderMigrationStub({ className: 'X', table: "users'); drop" }), /not a valid table name/)
  })

  it("gives a new app's migrations in order: users, password_resets, login_tokens", () => {
    const files = newAppMigrations(new Date(Date.UTC(2024, 11, 31, 23, 59, 58)))
    assert.deepEqual(
      files.map((file) => file.fileName),
      ['2024_12_31_235958_create_users_table.ts', '2024_12_31_235959_create_password_resets_table.ts', '2025_01_01_000000_create_login_tokens_table.ts'],
    )
    assert.deepEqual([...files.map((file) => file.fileName)].sort(), files.map((file) => file.fileName))
    assert.match(files[0]?.contents ?? '', /export default class CreateUsersTable extends Migration/)
    assert.match(files[0]?.contents ?? '', /string\('email'\)\.notNullable\(\)\.unique\(\)/)
    assert.match(files[1]?.contents ?? '', /string\('token', 64\)\.notNullable\(\)\.unique\(\)/)
    assert.match(files[2]?.contents ?? '', /references\('id'\)\.inTable\('users'\)\.onDelete\('CASCADE'\)/)
  })
})
