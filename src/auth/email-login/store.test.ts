/**
 * The sign-in code's single use against the per-code budget's end: a right answer read and let
 * through before an over-budget answer ended the code still signs in (once), as on a database
 * where the requests of a burst really run side by side.
 */
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import knex, { type Knex } from 'knex'
import { SqliteClient } from '../../database/sqlite-client.js'
import { EMAIL_LOGIN_TABLE, EmailLoginStore } from './store.js'

describe('EmailLoginStore.consumeCode', () => {
  let db: Knex
  let store: EmailLoginStore
  const address = 'race@example.test'

  before(async () => {
    db = knex({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    await db.schema.createTable(EMAIL_LOGIN_TABLE, (t) => {
      t.increments('id')
      t.string('email')
      t.integer('user_id').nullable()
      t.string('token_hash')
      t.string('code_hash').nullable()
      t.dateTime('created_at')
      t.dateTime('expires_at')
    })
    store = new EmailLoginStore(() => db, Buffer.alloc(32, 7))
  })
  after(() => db.destroy())

  it('an answer read before the code was ended still wins once; later readers and a second winner get nothing', async () => {
    const { code } = await store.replace(address, 1, 15)
    const readEarly = await store.findByAddress(address)
    const readAlsoEarly = await store.findByAddress(address)
    await store.endCode(readEarly!)
    const readLate = await store.findByAddress(address)
    assert.equal(readLate!.code_hash, null)
    assert.equal(await store.consumeCode(address, code, readLate), null, 'read after the end: no code to answer')
    assert.equal((await store.consumeCode(address, code, readEarly))?.id, readEarly!.id, 'let through before the end: signs in')
    assert.equal(await store.consumeCode(address, code, readAlsoEarly), null, 'the row is gone: one winner')
  })

  it('a wrong code, or a row a new mail replaced, never matches', async () => {
    const first = await store.replace(address, 1, 15)
    const old = await store.findByAddress(address)
    assert.equal(await store.consumeCode(address, first.code === '000000' ? '111111' : '000000', old), null)
    await store.replace(address, 1, 15)
    assert.equal(await store.consumeCode(address, first.code, old), null, 'replaced: the old row is gone')
  })
})
