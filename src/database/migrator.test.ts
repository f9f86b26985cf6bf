import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { DatabaseManager } from './database-manager.js'
import { MigrationError } from './errors.js'
import { Migration } from './migration.js'
import { newAppMigrations, renderMigrationStub } from './migration-stubs.js'
import { Migrator } from './migrator.js'
import { createTestDatabase, type TestDatabase } from './testing.js'
import { registerTypeScript } from '../cli/typescript-loader.js'

// The tests' migration folders sit in one folder marked as ES modules, as an app's are. The
// migrations import the Migration class this file's Migrator checks them against through a module
// that hands it over (under `npm test` this file runs compiled, with its own copy of the class).
const workspace = mkdtempSync(join(tmpdir(), 'trowel-migrator-'))
writeFileSync(join(workspace, 'package.json'), '{ "type": "module" }\n')
const HANDOVER = Symbol.for('trowel.test.migration-class')
;(globalThis as Record<symbol, unknown>)[HANDOVER] = Migration
writeFileSync(join(workspace, 'migration.js'), `export const Migration = globalThis[Symbol.for('trowel.test.migration-class')]\n`)
const MIGRATION_URL = pathToFileURL(join(workspace, 'migration.js')).href

let tdb: TestDatabase

function folder(files: Record<string, string>): string {
  const directory = mkdtempSync(join(workspace, 'migrations-'))
  for (const [name, contents] of Object.entries(files)) writeFileSync(join(directory, name), contents)
  return directory
}

function migration(className: string, up: string, down: string): string {
  return `import { Migration } from '${MIGRATION_URL}'
export default class ${className} extends Migration {
  async up() { ${up} }
  async down() { ${down} }
}
`
}

function createTable(table: string, extra = ''): string {
  return migration(
    'Create',
    `await this.schema.createTable('${table}', (t) => { t.increments('id'); t.string('name').nullable(); ${extra} })`,
    `await this.schema.dropTableIfExists('${table}')`,
  )
}

function migrator(directory: string, knex = tdb.knex): Migrator {
  return new Migrator(knex, directory, { tableName: tdb.table('migrations') })
}

before(async () => {
  // The migrations below are TypeScript files written at run time: under `npm test`, which runs
  // the suite compiled (scripts/test.mjs), they load through tsx as an app's do without its
  // compiled copy.
  if (process.env.TROWEL_TEST_COMPILED === '1') await registerTypeScript()
  tdb = await createTestDatabase({ sqliteFile: true })
})

after(async () => {
  await tdb.cleanup()
  rmSync(workspace, { recursive: true, force: true })
})

describe(`Migrator (${process.env.DB_CONNECTION ?? 'sqlite'})`, () => {
  it('runs, reports, rolls back by batch and refreshes', async () => {
    const a = tdb.table('mig_a')
    const b = tdb.table('mig_b')
    const directory = folder({
      '2024_01_01_000000_create_a.ts': createTable(a),
      '2024_01_01_000001_create_b.ts': createTable(b),
      'notes.txt': 'not a migration',
      'types.d.ts': 'export {}',
    })
    const m = migrator(directory)
    assert.deepEqual(
      (await m.files()).map((file) => file.slice(directory.length + 1)),
      ['2024_01_01_000000_create_a.ts', '2024_01_01_000001_create_b.ts'],
    )
    assert.deepEqual(await m.status(), [
      { name: '2024_01_01_000000_create_a', ran: false, batch: null },
      { name: '2024_01_01_000001_create_b', ran: false, batch: null },
    ])
    assert.deepEqual(await m.run(), ['2024_01_01_000000_create_a', '2024_01_01_000001_create_b'])
    assert.ok(await tdb.knex.schema.hasTable(a))
    assert.ok(await tdb.knex.schema.hasTable(b))
    assert.deepEqual(await m.run(), []) // nothing pending

    writeFileSync(
      join(directory, '2024_01_02_000000_add_token_a.ts'),
      migration(
        'AddTokenA',
        `await this.schema.table('${a}', (t) => { t.string('api_token').nullable() })`,
        `await this.schema.table('${a}', (t) => { t.dropColumn('api_token') })`,
      ),
    )
    assert.deepEqual(await m.run(), ['2024_01_02_000000_add_token_a'])
    assert.ok(await tdb.knex.schema.hasColumn(a, 'api_token'))
    assert.deepEqual(
      (await m.status()).map((row) => [row.ran, row.batch]),
      [
        [true, 1],
        [true, 1],
        [true, 2],
      ],
    )

    assert.deepEqual(await m.rollback(), ['2024_01_02_000000_add_token_a'])
    assert.equal(await tdb.knex.schema.hasColumn(a, 'api_token'), false)
    assert.ok(await tdb.knex.schema.hasTable(a))

    assert.deepEqual(await m.refresh(), {
      rolledBack: ['2024_01_01_000001_create_b', '2024_01_01_000000_create_a'],
      ran: ['2024_01_01_000000_create_a', '2024_01_01_000001_create_b', '2024_01_02_000000_add_token_a'],
    })
    assert.deepEqual(
      (await m.status()).map((row) => row.batch),
      [1, 1, 1],
    )
    assert.deepEqual(await m.reset(), ['2024_01_02_000000_add_token_a', '2024_01_01_000001_create_b', '2024_01_01_000000_create_a'])
    assert.equal(await tdb.knex.schema.hasTable(a), false)
    assert.deepEqual(await m.rollback(), [])
  })

  it('a failing migration leaves nothing of itself behind, and keeps the earlier ones of its batch', async () => {
    const ok = tdb.table('fail_ok')
    const half = tdb.table('fail_half')
    const directory = folder({
      '2024_02_01_000000_create_ok.ts': createTable(ok),
      '2024_02_01_000001_create_half.ts': migration(
        'CreateHalf',
        `await this.schema.createTable('${half}', (t) => { t.increments('id') })
         await this.db('${half}').insert({})
         await this.db.raw('select * from no_such_table_anywhere')`,
        `await this.schema.dropTableIfExists('${half}')`,
      ),
      '2024_02_01_000002_never.ts': createTable(tdb.table('fail_never')),
    })
    const m = migrator(directory)
    await assert.rejects(m.run(), (error: unknown) => {
      assert.ok(error instanceof MigrationError)
      assert.equal(error.file, '2024_02_01_000001_create_half')
      assert.match(error.message, /^Migration "2024_02_01_000001_create_half" failed: .*no_such_table_anywhere/)
      return true
    })
    assert.equal(await tdb.knex.schema.hasTable(half), false)
    assert.equal(await tdb.knex.schema.hasTable(tdb.table('fail_never')), false)
    assert.ok(await tdb.knex.schema.hasTable(ok))
    assert.deepEqual(
      (await m.status()).map((row) => [row.name, row.ran]),
      [
        ['2024_02_01_000000_create_ok', true],
        ['2024_02_01_000001_create_half', false],
        ['2024_02_01_000002_never', false],
      ],
    )
    await m.reset()
  })

  it('refuses a file without a default-exported Migration class before applying anything', async () => {
    const directory = folder({
      '2024_03_01_000000_fine.ts': createTable(tdb.table('bad_fine')),
      '2024_03_01_000001_bad.ts': 'export const up = () => {}\n',
    })
    const m = migrator(directory)
    await assert.rejects(m.run(), (error: unknown) => {
      assert.ok(error instanceof MigrationError)
      assert.equal(error.file, '2024_03_01_000001_bad')
      assert.match(error.message, /must default-export a class extending Migration/)
      return true
    })
    assert.equal(await tdb.knex.schema.hasTable(tdb.table('bad_fine')), false)
    const broken = folder({ '2024_03_02_000000_syntax.ts': 'export default class {{{' })
    await assert.rejects(migrator(broken).run(), /Migration "2024_03_02_000000_syntax" failed: 2024_03_02_000000_syntax.ts could not be loaded/)
  })

  it('applies each migration once when two runs race in one process', async () => {
    const directory = folder({
      '2024_04_01_000000_one.ts': createTable(tdb.table('race_one')),
      '2024_04_01_000001_two.ts': createTable(tdb.table('race_two')),
    })
    const [first, second] = await Promise.all([migrator(directory).run(), migrator(directory).run()])
    assert.deepEqual([...first, ...second].sort(), ['2024_04_01_000000_one', '2024_04_01_000001_two'])
    await migrator(directory).reset()
  })

  it('applies each migration once when a second process (pool) runs at the same time', async () => {
    const directory = folder({
      '2024_05_01_000000_one.ts': createTable(tdb.table('proc_one')),
      '2024_05_01_000001_two.ts': createTable(tdb.table('proc_two')),
      '2024_05_01_000002_three.ts': createTable(tdb.table('proc_three')),
    })
    const other = new DatabaseManager(tdb.manager.config)
    try {
      const results = await Promise.all([migrator(directory).run(), migrator(directory, other.connection()).run()])
      assert.deepEqual(results.flat().sort(), ['2024_05_01_000000_one', '2024_05_01_000001_two', '2024_05_01_000002_three'])
      const records = await tdb.knex(tdb.table('migrations')).where('name', 'like', '2024_05_01%')
      assert.equal(records.length, 3)
    } finally {
      await other.close()
    }
    await migrator(directory).reset()
  })

  it('lists nothing for a folder that does not exist', async () => {
    const m = migrator(join(tmpdir(), 'trowel-no-such-folder-' + Date.now()))
    assert.deepEqual(await m.files(), [])
    assert.deepEqual(await m.run(), [])
  })

  it("runs a new app's migrations, and an api_token migration both ways without touching other tables", async () => {
    const rename = (text: string) =>
      text
        .replaceAll("from 'trowel'", `from '${MIGRATION_URL}'`)
        .replace(/'(users|password_resets|login_tokens)'/g, (_, name: string) => `'${tdb.table(name)}'`)
    const files: Record<string, string> = {}
    for (const file of newAppMigrations(new Date(Date.UTC(2024, 5, 1, 12, 0, 0)))) files[file.fileName] = rename(file.contents)
    const directory = folder(files)
    const m = migrator(directory)
    assert.deepEqual(await m.run(), [
      '2024_06_01_120000_create_users_table',
      '2024_06_01_120001_create_password_resets_table',
      '2024_06_01_120002_create_login_tokens_table',
    ])
    const addToken = rename(`import { Migration } from 'trowel'
export default class AddApiTokenUsers extends Migration {
  async up() { await this.schema.table('users', (table) => { table.string('api_token').nullable() }) }
  async down() { await this.schema.table('users', (table) => { table.dropColumn('api_token') }) }
}
`)
    writeFileSync(join(directory, '2024_06_02_000000_add_api_token_users.ts'), addToken)
    assert.deepEqual(await m.run(), ['2024_06_02_000000_add_api_token_users'])
    const users = tdb.table('users')
    const logins = tdb.table('login_tokens')
    const user = { name: 'Ada', email: 'ada@example.com', password: 'x', api_token: 'd' }
    const [inserted] = tdb.driver === 'postgres' ? await tdb.knex(users).insert(user, ['id']) : await tdb.knex(users).insert(user)
    const id = typeof inserted === 'object' ? (inserted as { id: number }).id : (inserted as number)
    await tdb.knex(logins).insert({ user_id: id, token_hash: 'f'.repeat(64), created_at: new Date() })
    await tdb.knex(tdb.table('password_resets')).insert({ email: 'ada@example.com', token: 'e'.repeat(64), created_at: new Date(), expires_at: null })

    // Dropping the column rebuilds the table on SQLite: the login row must survive (no cascade).
    assert.deepEqual(await m.rollback(), ['2024_06_02_000000_add_api_token_users'])
    assert.equal(await tdb.knex.schema.hasColumn(users, 'api_token'), false)
    assert.equal((await tdb.knex(users)).length, 1)
    assert.equal((await tdb.knex(logins)).length, 1)

    // The cascade itself works when a user is deleted.
    await tdb.knex(users).where('id', id).delete()
    assert.equal((await tdb.knex(logins)).length, 0)
    await assert.rejects(tdb.knex(logins).insert({ user_id: 424242, token_hash: 'a'.repeat(64) })) // foreign key enforced

    assert.equal((await m.reset()).length, 3)
    assert.equal(await tdb.knex.schema.hasTable(users), false)
  })

  it('renders the stubs for craft migration', () => {
    const blank = renderMigrationStub({ className: 'AddApiTokenUsers' })
    assert.match(blank, /import \{ Migration \} from 'trowel'/)
    assert.match(blank, /export default class AddApiTokenUsers extends Migration/)
    assert.match(renderMigrationStub({ className: 'AddX', table: 'users' }), /this\.schema\.table\('users'/)
    const create = renderMigrationStub({ className: 'CreatePosts', table: 'posts', create: true })
    assert.match(create, /this\.schema\.createTable\('posts'/)
    assert.match(create, /dropTableIfExists\('posts'\)/)
  })
})
