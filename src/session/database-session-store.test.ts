import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import knexFactory, { type Knex } from 'knex'
import { SqliteClient } from '../database/sqlite-client.js'
import { DatabaseSessionStore, sessionsTableMigration } from './index.js'
import { FakeSessionApp, SessionBrowser } from './session-browser.test-kit.js'

describe('DatabaseSessionStore', () => {
  let db: Knex
  before(async () => {
    db = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    await sessionsTableMigration(db.schema)
  })
  after(() => db.destroy())

  it('writes, reads, updates, expires and destroys rows', async () => {
    const store = new DatabaseSessionStore(db, { pruneProbability: 0 })
    const data = { values: { a: 1 }, flash: {}, csrfToken: 't', createdAt: Date.now(), lastActivity: Date.now() }
    await store.write('id-1', data, 60)
    assert.deepEqual(await store.read('id-1'), data)
    await store.write('id-1', { ...data, values: { a: 2 } }, 60)
    assert.deepEqual((await store.read('id-1'))?.values, { a: 2 })
    assert.equal((await db('sessions').count({ n: '*' }))[0]!.n, 1)
    await store.destroy('id-1')
    assert.equal(await store.read('id-1'), null)
    await db('sessions').insert({ id: 'old', payload: JSON.stringify(data), last_activity: 0, expires_at: Date.now() - 1 })
    assert.equal(await store.read('old'), null)
    assert.equal(await store.read('never'), null)
  })

  it('serves the middleware (driver "database") through the container\'s knex', async () => {
    const app = new FakeSessionApp({ driver: 'database' })
    app.bind('db', db)
    const browser = new SessionBrowser(app)
    const first = await browser.request({}, (ctx) => ctx.session.put('k', 'v'))
    const row = await db('sessions').where('id', first.ctx.session.id).first()
    assert.ok(row)
    const second = await browser.request({})
    assert.equal(second.ctx.session.get('k'), 'v')
  })
})

describe('DatabaseSessionStore without a sessions table', () => {
  it('creates the table on first use', async () => {
    const fresh = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    try {
      const store = new DatabaseSessionStore(() => fresh)
      assert.equal(await store.read('nope'), null)
      assert.equal(await fresh.schema.hasTable('sessions'), true)
      await assert.rejects(new DatabaseSessionStore(fresh, { table: 'other', autoCreate: false }).read('x'), /no such table/)
    } finally {
      await fresh.destroy()
    }
  })
})
