import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createConnection } from 'node:net'
import knexFactory, { type Knex } from 'knex'
import { SqliteClient } from '../../database/sqlite-client.js'
import { TokenEpochs, epochChannel, POLL_OVERLAP_MS, DEFAULT_POLL_MS, DEFAULT_SAFETY_POLL_MS, MAX_SAFETY_POLL_MS, PUBLISH_ATTEMPTS } from './token-epochs.js'

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Whether `follower` learns an epoch of `id` above `above` within 40 looks, `stepMs` apart. */
async function learns(follower: TokenEpochs, id: string, above: number, stepMs: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if (follower.known(id) > above) return true
    await sleep(stepMs)
  }
  return false
}

/** Whether a Redis answers at REDIS_URL (CI has one; the Redis cases are skipped without it). */
async function redisReachable(): Promise<boolean> {
  const url = new URL(REDIS_URL)
  return new Promise((resolve) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port || 6379) })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
    socket.setTimeout(1000, () => {
      socket.destroy()
      resolve(false)
    })
  })
}
const redis = await redisReachable()

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

  it('without Redis, a process reads the raises every 750 ms: another process refuses a token within 1 s of its raise', async (t) => {
    // The clock is faked: the black-box tests see the same on real processes, but time nothing.
    t.mock.timers.enable({ apis: ['setTimeout'] })
    let polls = 0
    class Counting extends TokenEpochs {
      override async load(): Promise<void> {}
      override async poll(): Promise<void> {
        polls++
      }
    }
    const follower = new Counting({ db: () => knex, table: 'users', primaryKey: 'id' })
    await follower.start()
    try {
      for (let n = 1; n <= 3; n++) {
        t.mock.timers.tick(DEFAULT_POLL_MS - 1)
        assert.equal(polls, n - 1, `poll ${n} not before ${DEFAULT_POLL_MS} ms`)
        t.mock.timers.tick(1)
        assert.equal(polls, n, `poll ${n} at ${DEFAULT_POLL_MS} ms`)
        // The next poll is scheduled once this one has finished.
        await new Promise((resolve) => setImmediate(resolve))
      }
    } finally {
      await follower.stop()
    }
    assert.ok(DEFAULT_POLL_MS <= 750, 'a raise is read within 750 ms, leaving time for the query')
  })

  it('with Redis the database is still read at least every 10 s (default 5 s)', () => {
    assert.ok(DEFAULT_SAFETY_POLL_MS <= MAX_SAFETY_POLL_MS && MAX_SAFETY_POLL_MS <= 10_000)
  })

  it('with Redis, a raise whose message was lost is learnt by the safety poll', { skip: !redis && `no Redis at ${REDIS_URL}` }, async () => {
    const channel = `trowel:token-epoch:test-${Date.now().toString(36)}`
    const follower = new TokenEpochs({ db: () => knex, table: 'users', primaryKey: 'id', redisUrl: REDIS_URL, channel, pollMs: 50, safetyPollMs: 300 })
    await follower.start()
    try {
      // Subscribed and caught up: from now on only the safety poll reads the database.
      await sleep(200)
      const before = follower.known('1')
      // A raise that published nothing (its process had no Redis, or the message was lost).
      const silent = new TokenEpochs({ db: () => knex, table: 'users', primaryKey: 'id', channel })
      await silent.bump(1)
      assert.ok(await learns(follower, '1', before, 50), 'the safety poll did not see the raise')
    } finally {
      await follower.stop()
    }
  })

  it('with Redis, a raise published normally reaches another process at once', { skip: !redis && `no Redis at ${REDIS_URL}` }, async () => {
    const channel = `trowel:token-epoch:test-${Date.now().toString(36)}-b`
    const follower = new TokenEpochs({ db: () => knex, table: 'users', primaryKey: 'id', redisUrl: REDIS_URL, channel, safetyPollMs: 10_000 })
    const raiser = new TokenEpochs({ db: () => knex, table: 'users', primaryKey: 'id', redisUrl: REDIS_URL, channel })
    await follower.start()
    try {
      const before = follower.known('2')
      await raiser.bump(2)
      assert.ok(await learns(follower, '2', before, 25), 'the published raise did not arrive')
    } finally {
      await Promise.all([follower.stop(), raiser.stop()])
    }
  })

  it('a failed publish is retried, then given up (the safety poll covers it)', async () => {
    const warnings: Record<string, unknown>[] = []
    // Nothing listens on port 1: every publish fails.
    const raiser = new TokenEpochs({
      db: () => knex,
      table: 'users',
      primaryKey: 'id',
      redisUrl: 'redis://127.0.0.1:1',
      publishRetryMs: 20,
      log: { warn: (event, data) => void (event === 'api.token_epoch_publish_failed' && warnings.push(data ?? {})) },
    })
    try {
      assert.equal(await raiser.bump(3), 1, 'the row is raised whatever Redis does')
      for (let i = 0; i < 100 && warnings.length < PUBLISH_ATTEMPTS; i++) await sleep(50)
      assert.deepEqual(
        warnings.map((w) => [w.attempt, w.retry]),
        Array.from({ length: PUBLISH_ATTEMPTS }, (_, i) => [i + 1, i + 1 < PUBLISH_ATTEMPTS]),
      )
    } finally {
      await raiser.stop()
    }
  })
})
