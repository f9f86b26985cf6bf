import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import knexFactory, { type Knex } from 'knex'
import { SqliteClient } from '../../database/sqlite-client.js'
import { TokenEpochs, epochChannel, POLL_OVERLAP_MS } from './token-epochs.js'

describe('TokenEpochs', () => {
  let knex: Knex
  before(async () => {
    knex = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    await knex.schema.createTable('users', (t) => {
      t.increments('id')
      t.integer('token_epoch').notNullable().defaultTo(0)
      t.bigInteger('token_epoch_at').nullable()
    })
    await knex('users').insert([{ token_epoch: 0 }, { token_epoch: 0 }, { token_epoch: 0 }, { token_epoch: 0 }])
  })
  after(() => knex.destroy())

  const epochs = (now = Date.now) => new TokenEpochs({ db: () => knex, table: 'users', primaryKey: 'id', now })

  it('accepts a uep at or above the known epoch; refuses a missing or smaller one', () => {
    const e = epochs()
    assert.equal(e.accepts('1', 0), true)
    assert.equal(e.accepts('1', undefined), false)
    assert.equal(e.accepts('1', '0'), false)
    assert.equal(e.accepts('1', 0.5), false)
    e.note('1', 2)
    e.note('1', 1) // never goes down
    assert.equal(e.known('1'), 2)
    assert.equal(e.accepts('1', 1), false)
    assert.equal(e.accepts('1', 2), true)
    assert.equal(e.accepts('2', 0), true)
  })

  it('bump raises the row and this process at once; another process learns it by load or poll', async () => {
    const a = epochs()
    const b = epochs()
    await b.load()
    assert.equal(await a.bump(1), 1)
    assert.equal(a.known('1'), 1)
    assert.equal(b.known('1'), 0)
    await b.poll()
    assert.equal(b.known('1'), 1)
    const c = epochs()
    await c.load()
    assert.equal(c.known('1'), 1)
    assert.equal(c.known('2'), 0)
    assert.equal(await a.current(1), 1)
    assert.equal(await a.bump(999), 0, 'no such user')
  })

  it('a raise after a rolled-back one still refuses tokens issued in between', async () => {
    const a = epochs()
    const before = await a.current(2)
    await knex.transaction(async (trx) => {
      await a.bump(2, trx)
      throw new Error('rollback')
    }).catch(() => {})
    assert.equal(a.known('2'), before + 1, 'memory is ahead of the row (fail closed)')
    const issued = await a.current(2) // what a token issued now carries
    assert.equal(issued, before + 1)
    await a.bump(2)
    assert.equal(a.accepts('2', issued), false)
    assert.equal(Number((await knex('users').where('id', 2).first('token_epoch')).token_epoch), before + 2)
  })

  it('a poll looks back POLL_OVERLAP_MS before the previous one (late commits, clock skew)', async () => {
    let clock = Date.now()
    const b = epochs(() => clock)
    await b.load()
    // Another server whose clock is 30 s behind raises user 3.
    const writer = epochs(() => clock - 30_000)
    await writer.bump(3)
    clock += 1000
    await b.poll()
    assert.equal(b.known('3'), 1)
    // Beyond the overlap it would not be seen: documents the bound.
    const late = epochs(() => clock - POLL_OVERLAP_MS - 5000)
    await b.poll()
    await late.bump(4)
    await b.poll()
    assert.equal(b.known('4'), 0)
  })

  it('one Redis channel per APP_KEY, the key never in it', () => {
    assert.notEqual(epochChannel('a'.repeat(32)), epochChannel('b'.repeat(32)))
    assert.ok(!epochChannel('secret-key-value').includes('secret'))
    assert.match(epochChannel('x'), /^trowel:token-epoch:[0-9a-f]{16}$/)
  })
})
