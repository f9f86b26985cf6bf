import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import knex, { type Knex } from 'knex'
import { SqliteClient } from '../database/sqlite-client.js'
import { resolveAuthConfig } from './auth-config.js'
import { pruneAuthTables } from './prune.js'
import { apiFeatures } from '../api/features/index.js'
import { authFeatures } from './features/index.js'
import { throttleTableMigration } from './throttle/database-throttle-store.js'

const NOW = new Date('2026-11-20T12:00:00Z')
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000)

/** The auth features' rules, then the JWT API's (as `pruneRulesOf` lists them in an app). */
const rules = () => [...authFeatures().flatMap((f) => f.prune ?? []), ...apiFeatures().flatMap((f) => f.prune ?? [])]

describe('pruneAuthTables', () => {
  let db: Knex

  before(async () => {
    db = knex({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    await db.schema.createTable('login_tokens', (t) => {
      t.increments('id')
      t.string('token_hash')
      t.dateTime('created_at')
      t.dateTime('last_used_at').nullable()
    })
    await db.schema.createTable('password_resets', (t) => {
      t.string('email')
      t.string('token')
      t.dateTime('expires_at').nullable()
    })
    for (const table of ['remember_tokens', 'user_tokens']) {
      await db.schema.createTable(table, (t) => {
        t.increments('id')
        t.string('name')
        t.dateTime('expires_at')
      })
    }
    await db.schema.createTable('personal_access_tokens', (t) => {
      t.increments('id')
      t.string('name')
      t.dateTime('expires_at').nullable()
    })
    await db.schema.createTable('api_tokens', (t) => {
      t.increments('id')
      t.string('name')
      t.dateTime('revoked_at').nullable()
      t.dateTime('expires_at').nullable()
      t.dateTime('replaced_at').nullable()
      t.text('successor').nullable()
    })
    await db('api_tokens').insert([
      { name: 'live', revoked_at: null, expires_at: null, replaced_at: null, successor: null },
      { name: 'revoked', revoked_at: ago(5), expires_at: null, replaced_at: null, successor: null },
      { name: 'past-max-age', revoked_at: null, expires_at: ago(1), replaced_at: null, successor: null },
      { name: 'replaced-long-ago', revoked_at: null, expires_at: null, replaced_at: ago(61), successor: 'sealed' },
      { name: 'replaced-just-now', revoked_at: null, expires_at: null, replaced_at: ago(1), successor: 'sealed' },
    ])
    await throttleTableMigration(db.schema)
    await db.schema.createTable('auth_events', (t) => {
      t.increments('id')
      t.string('type')
      t.dateTime('created_at')
    })
    await db('login_tokens').insert([
      { token_hash: 'fresh', created_at: ago(10), last_used_at: ago(1) },
      { token_hash: 'idle', created_at: ago(300), last_used_at: ago(200) },
      { token_hash: 'idle-never-used', created_at: ago(300), last_used_at: null },
      { token_hash: 'too-old', created_at: ago(30_000), last_used_at: ago(1) },
    ])
    await db('password_resets').insert([
      { email: 'a', token: 'live', expires_at: new Date(NOW.getTime() + 60_000) },
      { email: 'b', token: 'dead', expires_at: ago(1) },
      { email: 'c', token: 'forever', expires_at: null },
    ])
    for (const table of ['remember_tokens', 'user_tokens']) {
      await db(table).insert([
        { name: 'live', expires_at: new Date(NOW.getTime() + 60_000) },
        { name: 'dead', expires_at: ago(1) },
      ])
    }
    await db('personal_access_tokens').insert([
      { name: 'live', expires_at: new Date(NOW.getTime() + 60_000) },
      { name: 'dead', expires_at: ago(1) },
      { name: 'forever', expires_at: null },
    ])
    await db('throttle').insert([
      { key: 'open', count: 1, reset_at: NOW.getTime() + 30_000 },
      { key: 'ended', count: 3, reset_at: NOW.getTime() - 1 },
    ])
    await db('auth_events').insert([
      { type: 'recent', created_at: ago(60 * 24 * 10) },
      { type: 'ancient', created_at: ago(60 * 24 * 400) },
    ])
  })
  after(() => db.destroy())

  it('removes idle, expired and old rows, reports the counts, and keeps the rest', async () => {
    const config = resolveAuthConfig({ default: 'web', web: {} }, { requireModel: false, features: authFeatures() })
    const { removed } = await pruneAuthTables(db, config, rules(), NOW)
    assert.deepEqual(removed, [
      { table: 'login_tokens', rows: 3 },
      { table: 'password_resets', rows: 1 },
      { table: 'remember_tokens', rows: 1 },
      { table: 'user_tokens', rows: 1 },
      { table: 'personal_access_tokens', rows: 1 },
      { table: 'api_tokens', rows: 2 },
      { table: 'throttle', rows: 1 },
      { table: 'auth_events', rows: 1 },
    ])
    assert.deepEqual((await db('login_tokens').pluck('token_hash')).sort(), ['fresh'])
    assert.deepEqual((await db('password_resets').pluck('token')).sort(), ['forever', 'live'])
    assert.deepEqual(await db('throttle').pluck('key'), ['open'])
    assert.deepEqual(await db('remember_tokens').pluck('name'), ['live'])
    assert.deepEqual(await db('user_tokens').pluck('name'), ['live'])
    assert.deepEqual((await db('personal_access_tokens').pluck('name')).sort(), ['forever', 'live'])
    assert.deepEqual(await db('auth_events').pluck('type'), ['recent'])
    // Revoked and past max_age go; a successor kept for retries goes after an hour, its row stays.
    const families = Object.fromEntries((await db('api_tokens').select('name', 'successor')).map((r) => [r.name, r.successor]))
    assert.deepEqual(families, { live: null, 'replaced-long-ago': null, 'replaced-just-now': 'sealed' })
  })

  it('skips tables the app does not have', async () => {
    await db.schema.dropTable('auth_events')
    const config = resolveAuthConfig({ default: 'web', web: {} }, { requireModel: false, features: authFeatures() })
    const { removed } = await pruneAuthTables(db, config, rules(), NOW)
    assert.ok(!removed.some((r) => r.table === 'auth_events'))
  })
})
