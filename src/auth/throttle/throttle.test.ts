import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import knexFactory, { type Knex } from 'knex'
import { SqliteClient } from '../../database/sqlite-client.js'
import { Redis } from 'ioredis'
import { sha256Hex } from '../tokens/index.js'
import {
  DatabaseThrottleStore,
  LoginThrottle,
  MemoryThrottleStore,
  RedisThrottleStore,
  throttleTableMigration,
  type ThrottleStore,
} from './index.js'

// Set up every backend before any test is declared (top-level await would otherwise let the
// runner finish the root test's hooks early).
// SQLite in memory by default; PostgreSQL when DB_CONNECTION=postgres and DATABASE_URL are set
// (then in a table of its own, dropped afterwards).
const onPostgres = process.env.DB_CONNECTION === 'postgres' && Boolean(process.env.DATABASE_URL)
const db: Knex = onPostgres
  ? knexFactory({ client: 'pg', connection: process.env.DATABASE_URL })
  : knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
const table = onPostgres ? `throttle_test_${randomBytes(4).toString('hex')}` : 'throttle'
await throttleTableMigration(db.schema, table)

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000, retryStrategy: () => null })
redis.on('error', () => {})
let redisSkip: string | false = false
try {
  await redis.connect()
  await redis.ping()
} catch (error) {
  redisSkip = `Redis unreachable at ${redisUrl} (${(error as Error).message})`
  console.log(`# skipping Redis throttle tests: ${redisSkip}`)
}
const prefix = `trowel:test:${randomBytes(6).toString('hex')}:`
after(async () => {
  if (onPostgres) await db.schema.dropTableIfExists(table)
  await db.destroy()
  if (!redisSkip) {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
  }
  redis.disconnect()
})

/**
 * Contract tests every store must pass. `advance(ms)` moves the store's clock (or waits); a store
 * on a real clock gives `scale`, which stretches the short windows so that a late timer on a busy
 * machine cannot end one early.
 */
function storeContract(name: string, make: () => { store: ThrottleStore; advance: (ms: number) => Promise<void>; scale?: number }): void {
  describe(`${name}: ThrottleStore contract`, () => {
    const key = () => `user${randomBytes(6).toString('hex')}@example.com|127.0.0.1`

    it('counts hits in one window', async () => {
      const { store } = make()
      const k = key()
      assert.equal(await store.get(k), null)
      assert.deepEqual(await store.hit(k, 60), { count: 1, resetInSeconds: 60 })
      const second = await store.hit(k, 60)
      assert.equal(second.count, 2)
      assert.ok(second.resetInSeconds >= 59 && second.resetInSeconds <= 60)
      const current = await store.get(k)
      assert.equal(current?.count, 2)
    })

    it('keeps keys apart', async () => {
      const { store } = make()
      const a = key()
      const b = key()
      await store.hit(a, 60)
      await store.hit(a, 60)
      await store.hit(b, 60)
      assert.equal((await store.get(a))?.count, 2)
      assert.equal((await store.get(b))?.count, 1)
    })

    it('forgets a key on clear', async () => {
      const { store } = make()
      const k = key()
      await store.hit(k, 60)
      await store.clear(k)
      assert.equal(await store.get(k), null)
      assert.equal((await store.hit(k, 60)).count, 1)
      await store.clear(key())
    })

    it('starts a new window when the old one ends (fixed window)', async () => {
      const { store, advance, scale = 1 } = make()
      const k = key()
      const window = 0.3 * scale
      await store.hit(k, window)
      await store.hit(k, window)
      await advance(150 * scale)
      assert.equal((await store.hit(k, window)).count, 3, 'later hits do not extend the window')
      await advance(250 * scale)
      assert.equal(await store.get(k), null)
      assert.equal((await store.hit(k, window)).count, 1)
    })

    it('counts concurrent hits without losing any', async () => {
      const { store } = make()
      const k = key()
      const results = await Promise.all(Array.from({ length: 25 }, () => store.hit(k, 60)))
      assert.deepEqual(results.map((r) => r.count).sort((x, y) => x - y), Array.from({ length: 25 }, (_, i) => i + 1))
      assert.equal((await store.get(k))?.count, 25)
    })

    it('refuses a non-positive window', async () => {
      const { store } = make()
      await assert.rejects(store.hit(key(), 0), RangeError)
      await assert.rejects(store.hit(key(), Number.NaN), RangeError)
    })
  })
}

function fakeClock() {
  const clock = { now: Date.UTC(2030, 0, 1) }
  return { now: () => clock.now, advance: async (ms: number) => void (clock.now += ms) }
}

// ---------------------------------------------------------------------------------------------

storeContract('MemoryThrottleStore', () => {
  const clock = fakeClock()
  return { store: new MemoryThrottleStore({ now: clock.now }), advance: clock.advance }
})

describe('MemoryThrottleStore', () => {
  it('never holds more than maxEntries keys, dropping expired then oldest', async () => {
    const clock = fakeClock()
    const store = new MemoryThrottleStore({ maxEntries: 3, now: clock.now })
    await store.hit('a', 10)
    await store.hit('b', 60)
    await store.hit('c', 60)
    await clock.advance(20_000)
    await store.hit('d', 60)
    assert.equal(store.size, 3)
    assert.equal(await store.get('a'), null, 'the expired window went first')
    assert.equal((await store.get('b'))?.count, 1)
    await store.hit('e', 60)
    assert.equal(store.size, 3)
    assert.equal(await store.get('b'), null, 'then the oldest window')
    assert.deepEqual([(await store.get('c'))?.count, (await store.get('d'))?.count, (await store.get('e'))?.count], [1, 1, 1])
    for (let i = 0; i < 1000; i++) await store.hit(`k${i}`, 60)
    assert.equal(store.size, 3)
  })

  it('drops expired entries when a window is opened', async () => {
    const clock = fakeClock()
    const store = new MemoryThrottleStore({ now: clock.now })
    for (let i = 0; i < 100; i++) await store.hit(`k${i}`, 1)
    clock.advance(1000)
    await store.hit('fresh', 1)
    assert.equal(store.size, 1)
  })
})

// ---------------------------------------------------------------------------------------------

storeContract('DatabaseThrottleStore', () => {
  const clock = fakeClock()
  return { store: new DatabaseThrottleStore(db, { now: clock.now, table }), advance: clock.advance }
})

describe('DatabaseThrottleStore', () => {
  it('creates the table with key, count and reset_at', async () => {
    const columns = await db(table).columnInfo()
    assert.deepEqual(Object.keys(columns).sort(), ['count', 'key', 'reset_at'])
  })

  it('stores the SHA-256 of the key and the window end in epoch milliseconds', async () => {
    const clock = fakeClock()
    const store = new DatabaseThrottleStore(db, { now: clock.now, table })
    await store.hit('Alice@Example.com|10.0.0.1', 60)
    const row = await db(table).where('key', sha256Hex('Alice@Example.com|10.0.0.1')).first()
    assert.equal(Number(row.reset_at), clock.now() + 60_000)
    assert.equal(Number(row.count), 1)
    assert.equal(await db(table).where('key', 'like', '%Alice%').first(), undefined)
  })

  it('prunes ended windows', async () => {
    const clock = fakeClock()
    const store = new DatabaseThrottleStore(db, { now: clock.now, table })
    await db(table).delete()
    await store.hit('old', 1)
    await store.hit('new', 60)
    await clock.advance(2000)
    assert.equal(await store.prune(), 1)
    assert.equal((await store.get('new'))?.count, 1)
  })
})

// ---------------------------------------------------------------------------------------------

if (redisSkip) {
  describe('RedisThrottleStore', () => {
    it('runs against Redis', { skip: redisSkip }, () => {})
  })
} else {
  storeContract('RedisThrottleStore', () => ({ store: new RedisThrottleStore(redis, { prefix }), advance: (ms) => sleep(ms), scale: 10 }))

  describe('RedisThrottleStore', () => {
    it('uses trowel:throttle:<sha256 of key> by default, with the window as TTL', async () => {
      const store = new RedisThrottleStore(redis)
      const key = `probe-${randomBytes(8).toString('hex')}|127.0.0.1`
      try {
        await store.hit(key, 60)
        const redisKey = `trowel:throttle:${sha256Hex(key)}`
        assert.equal(store.redisKey(key), redisKey)
        assert.equal(await redis.get(redisKey), '1')
        const ttl = await redis.pttl(redisKey)
        assert.ok(ttl > 59_000 && ttl <= 60_000, `ttl ${ttl}`)
      } finally {
        await store.clear(key)
      }
    })

    it('gives a counter left without expiry one', async () => {
      const store = new RedisThrottleStore(redis, { prefix })
      await redis.set(store.redisKey('stale'), '3')
      const entry = await store.hit('stale', 60)
      assert.equal(entry.count, 4)
      assert.ok((await redis.pttl(store.redisKey('stale'))) > 0)
    })
  })
}

// ---------------------------------------------------------------------------------------------

describe('LoginThrottle', () => {
  it('keys by lower(trim(email)) and IP', () => {
    const throttle = new LoginThrottle(new MemoryThrottleStore())
    assert.equal(throttle.key('  Alice@Example.COM ', '10.0.0.1'), 'alice@example.com|10.0.0.1')
    assert.notEqual(throttle.key('alice@example.com', '10.0.0.1'), throttle.key('alice@example.com', '10.0.0.2'))
  })

  it('allows 5 failures a minute, then refuses until the window ends', async () => {
    const clock = fakeClock()
    const throttle = new LoginThrottle(new MemoryThrottleStore({ now: clock.now }))
    assert.equal(throttle.maxAttempts, 5)
    assert.equal(throttle.decaySeconds, 60)
    const key = throttle.key('alice@example.com', '127.0.0.1')
    for (let i = 1; i <= 4; i++) {
      assert.equal(await throttle.tooManyAttempts(key), null)
      assert.equal(await throttle.hit(key), i)
    }
    assert.equal(await throttle.tooManyAttempts(key), null)
    await throttle.hit(key)
    assert.equal(await throttle.tooManyAttempts(key), 60)
    await clock.advance(45_500)
    assert.equal(await throttle.tooManyAttempts(key), 15)
    await clock.advance(14_500)
    assert.equal(await throttle.tooManyAttempts(key), null)
    assert.equal(await throttle.hit(key), 1)
  })

  it('forgets failures on clear', async () => {
    const throttle = new LoginThrottle(new MemoryThrottleStore())
    const key = throttle.key('bob@example.com', '::1')
    for (let i = 0; i < 5; i++) await throttle.hit(key)
    assert.ok((await throttle.tooManyAttempts(key)) !== null)
    await throttle.clear(key)
    assert.equal(await throttle.tooManyAttempts(key), null)
  })

  it('shares one budget across processes through the database store', async () => {
    const clock = fakeClock()
    const first = new LoginThrottle(new DatabaseThrottleStore(db, { now: clock.now, table }))
    const second = new LoginThrottle(new DatabaseThrottleStore(db, { now: clock.now, table }))
    const key = first.key('carol@example.com', '127.0.0.1')
    for (let i = 0; i < 3; i++) await first.hit(key)
    for (let i = 0; i < 2; i++) await second.hit(key)
    assert.equal(await first.tooManyAttempts(key), 60)
    assert.equal(await second.tooManyAttempts(key), 60)
  })

  it('accepts custom limits and refuses nonsense', () => {
    assert.equal(new LoginThrottle(new MemoryThrottleStore(), { maxAttempts: 3, decaySeconds: 30 }).maxAttempts, 3)
    assert.throws(() => new LoginThrottle(new MemoryThrottleStore(), { maxAttempts: 0 }), RangeError)
    assert.throws(() => new LoginThrottle(new MemoryThrottleStore(), { decaySeconds: -1 }), RangeError)
  })
})
