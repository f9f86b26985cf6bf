import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseManager, db, getDatabase, setDatabase } from './database-manager.js'
import { DatabaseUnavailableError } from './errors.js'
import { FrameworkError } from '../foundation/framework-error.js'
import { createTestDatabase, type TestDatabase } from './testing.js'

describe('DatabaseManager configuration', () => {
  const DATABASES = {
    default: 'sqlite',
    sqlite: { driver: 'sqlite', database: ':memory:' },
    postgres: { driver: 'postgres', url: 'postgres://u:secret@127.0.0.1:1/x', pool: { min: 0, max: 10 } },
    mysql: { driver: 'mysql', url: 'mysql://u:secret@127.0.0.1:1/x', pool: { min: 0, max: 10 } },
  }

  it('accepts the DB_CONNECTION aliases', () => {
    for (const [value, expected] of [
      ['sqlite', 'sqlite'],
      ['postgres', 'postgres'],
      ['pg', 'postgres'],
      ['postgresql', 'postgres'],
      ['mysql', 'mysql'],
      ['mariadb', 'mysql'],
    ] as const) {
      const manager = new DatabaseManager({ ...DATABASES, default: value })
      assert.equal(manager.defaultConnectionName(), expected)
      assert.equal(manager.driver(), expected)
    }
  })

  it('rejects unknown connections and missing URLs with a message naming config/database.ts', () => {
    assert.throws(() => new DatabaseManager({ ...DATABASES, default: 'oracle' }).connection(), (error: unknown) => {
      assert.ok(error instanceof FrameworkError)
      assert.match(error.message, /Unknown database connection "oracle".*config\/database\.ts/)
      return true
    })
    assert.throws(() => new DatabaseManager({ default: 'postgres', postgres: { driver: 'postgres', url: undefined } }).connection(), /DATABASE_URL/)
  })

  it('resolves a relative SQLite path against the base path and creates its folder', async () => {
    const base = mkdtempSync(join(tmpdir(), 'trowel-manager-'))
    const manager = new DatabaseManager({ default: 'sqlite', sqlite: { driver: 'sqlite', database: 'storage/nested/app.sqlite' } }, base)
    try {
      assert.equal(existsSync(join(base, 'storage/nested')), false) // nothing happens before first use
      await manager.check()
      assert.equal(existsSync(join(base, 'storage/nested/app.sqlite')), true)
      const knex = manager.connection()
      assert.equal(manager.connection(), knex) // cached
      const [journal] = (await knex.raw('pragma journal_mode')) as Array<{ journal_mode: string }>
      const [fk] = (await knex.raw('pragma foreign_keys')) as Array<{ foreign_keys: number }>
      const [busy] = (await knex.raw('pragma busy_timeout')) as Array<Record<string, number>>
      assert.equal(journal?.journal_mode, 'wal')
      assert.equal(fk?.foreign_keys, 1)
      assert.equal(Object.values(busy ?? {})[0], 5000)
    } finally {
      await manager.close()
      rmSync(base, { recursive: true, force: true })
    }
  })

  it('check() against an unreachable server throws one line naming the connection and driver', async () => {
    for (const name of ['postgres', 'mysql'] as const) {
      const manager = new DatabaseManager({ ...DATABASES, default: name })
      try {
        await assert.rejects(manager.check(), (error: unknown) => {
          assert.ok(error instanceof DatabaseUnavailableError)
          assert.equal(error.status, 503)
          assert.equal(error.code, 'E_UNAVAILABLE')
          const expected = name === 'postgres' ? 'postgres at 127.0.0.1:1' : 'mysql at 127.0.0.1:1'
          assert.ok(error.message.startsWith(`Cannot connect to database "${name}" (${expected}): `), error.message)
          assert.match(error.message, /ECONNREFUSED/)
          assert.equal(error.message.includes('\n'), false)
          assert.equal(error.message.includes('secret'), false)
          assert.equal(error.detail, error.message)
          return true
        })
      } finally {
        await manager.close()
      }
    }
  })

  it('db() needs a default manager and uses it', async () => {
    setDatabase(undefined)
    assert.throws(() => db(), /No database is configured/)
    const manager = new DatabaseManager(DATABASES)
    setDatabase(manager)
    try {
      assert.equal(getDatabase(), manager)
      assert.equal(db(), manager.connection())
      assert.deepEqual(await db().raw('select 1 as one'), [{ one: 1 }])
    } finally {
      setDatabase(undefined)
      await manager.close()
    }
  })
})

describe(`DatabaseManager.prepared (${process.env.DB_CONNECTION ?? 'sqlite'})`, () => {
  let tdb: TestDatabase
  let table: string

  before(async () => {
    tdb = await createTestDatabase({ sqliteFile: true })
    table = tdb.table('tokens')
    await tdb.knex.schema.createTable(table, (t) => {
      t.increments('id')
      t.string('token_hash', 64).nullable().unique()
      t.string('label').nullable()
    })
    await tdb.knex(table).insert([
      { token_hash: 'a'.repeat(64), label: 'first' },
      { token_hash: null, label: 'no hash' },
    ])
  })

  after(async () => {
    await tdb.cleanup()
  })

  it('finds a row, and returns undefined for no match', async () => {
    const lookup = tdb.manager.prepared()
    assert.equal(lookup, tdb.manager.prepared()) // one per connection
    const row = await lookup.findBy(table, 'token_hash', 'a'.repeat(64))
    assert.equal(row?.label, 'first')
    assert.equal(await lookup.findBy(table, 'token_hash', 'b'.repeat(64)), undefined)
    assert.equal((await lookup.findBy(table, 'id', row?.id))?.label, 'first')
  })

  it('never matches NULL rows and never queries for undefined/null', async () => {
    const lookup = tdb.manager.prepared()
    assert.equal(await lookup.findBy(table, 'token_hash', undefined), undefined)
    assert.equal(await lookup.findBy(table, 'token_hash', null), undefined)
    assert.equal(await lookup.findBy('no_such_table', 'x', null), undefined) // no query was sent
  })

  it('sees rows written through knex right away, and does not read into an open transaction', async () => {
    const lookup = tdb.manager.prepared()
    await tdb.knex(table).insert({ token_hash: 'c'.repeat(64), label: 'later' })
    assert.equal((await lookup.findBy(table, 'token_hash', 'c'.repeat(64)))?.label, 'later')
    let seenInside: unknown = 'not run'
    await tdb.knex.transaction(async (trx) => {
      await trx(table).insert({ token_hash: 'd'.repeat(64), label: 'uncommitted' })
      // On SQLite the one connection is busy with this transaction: the lookup must wait for it,
      // not read the uncommitted row; elsewhere the lookup runs on another connection.
      const pending = lookup.findBy(table, 'token_hash', 'd'.repeat(64)).then((row) => {
        seenInside = row
      })
      if (tdb.driver !== 'sqlite') await pending
      else void pending
      await new Promise((resolve) => setTimeout(resolve, 20))
      if (tdb.driver === 'sqlite') assert.equal(seenInside, 'not run')
      else assert.equal(seenInside, undefined)
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    if (tdb.driver === 'sqlite') assert.equal((seenInside as Record<string, unknown> | undefined)?.label, 'uncommitted')
  })

  it('keeps working after the manager is closed and reopened', async () => {
    const first = tdb.manager.prepared()
    assert.ok(await first.findBy(table, 'token_hash', 'a'.repeat(64)))
    await tdb.manager.close()
    const knex = tdb.manager.connection()
    tdb.knex = knex
    const again = tdb.manager.prepared()
    assert.notEqual(again, first)
    assert.equal((await again.findBy(table, 'token_hash', 'a'.repeat(64)))?.label, 'first')
  })
})
