/**
 * Budgets shared by processes: two stores on two separate connection pools of one database (as
 * two app processes have), on the database of DB_CONNECTION (SQLite: one file, two connections),
 * and two Redis clients when Redis answers on REDIS_URL (default 127.0.0.1:6379). Of 50
 * concurrent attempts split across both, exactly `attempts` get a slot, and of 50 concurrent
 * wrong passwords through two verifiers at most 5 reach a hasher.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { DatabaseManager } from '../../database/database-manager.js'
import { testDriver } from '../../database/testing.js'
import { Logger } from '../../support/logger.js'
import { FakeHasher } from '../../testing/fake-hasher.js'
import { FakeUserProvider } from '../../testing/fake-user-provider.js'
import { BudgetExceededError, CredentialVerifier } from '../credential-verifier.js'
import { Budget } from './budget.js'
import { DatabaseThrottleStore, throttleTableMigration } from './database-throttle-store.js'
import { RedisThrottleStore } from './redis-throttle-store.js'
import type { ThrottleStore } from './throttle-store.js'

const driver = testDriver()
const table = `throttle_t_${randomBytes(4).toString('hex')}`
const directory = driver === 'sqlite' ? mkdtempSync(join(tmpdir(), 'trowel-budget-')) : ''
const connection = () =>
  driver === 'sqlite'
    ? new DatabaseManager({ default: 'sqlite', sqlite: { driver: 'sqlite', database: join(directory, 'db.sqlite') } })
    : new DatabaseManager({ default: driver, [driver]: { driver, url: process.env.DATABASE_URL!, pool: { min: 0, max: 10 } } })
const managers = [connection(), connection()]

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const redisClients = [0, 1].map(() => new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000, retryStrategy: () => null }))
for (const client of redisClients) client.on('error', () => {})
let redisSkip: string | false = false
try {
  for (const client of redisClients) await client.connect()
  await redisClients[0]!.ping()
} catch (error) {
  redisSkip = `Redis unreachable at ${redisUrl} (${(error as Error).message})`
  console.log(`# skipping the shared Redis budget tests: ${redisSkip}`)
}
const prefix = `trowel:test:${randomBytes(6).toString('hex')}:`

before(async () => {
  await throttleTableMigration(managers[0]!.connection().schema, table)
})
after(async () => {
  await managers[0]!.connection().schema.dropTableIfExists(table)
  for (const manager of managers) await manager.close()
  if (!redisSkip) {
    const keys = await redisClients[0]!.keys(`${prefix}*`)
    if (keys.length > 0) await redisClients[0]!.del(...keys)
  }
  for (const client of redisClients) client.disconnect()
  if (directory) rmSync(directory, { recursive: true, force: true })
})

/** A fake hasher whose checks take a while, so concurrent attempts overlap. */
class SlowHasher extends FakeHasher {
  override async dummyVerify(): Promise<false> {
    this.calls++
    await sleep(10)
    return false
  }
  override async verify(): Promise<boolean> {
    this.calls++
    await sleep(10)
    return false
  }
}

function sharedContract(name: string, stores: () => [ThrottleStore, ThrottleStore]): void {
  describe(`${name}: one budget across two processes`, () => {
    it('50 concurrent takes split across both: exactly 5 get a slot', async () => {
      const [a, b] = stores()
      const key = `k-${randomBytes(8).toString('hex')}`
      const budgets = [new Budget('login', a, { attempts: 5, minutes: 1 }), new Budget('login', b, { attempts: 5, minutes: 1 })]
      const slots = await Promise.all(Array.from({ length: 50 }, (_, i) => budgets[i % 2]!.takeSlot(budgets[0]!.key(key))))
      assert.equal(slots.filter((s) => s.ok).length, 5)
      assert.equal(slots.filter((s) => !s.ok && s.first).length, 1, 'one attempt is the first over the budget')
    })

    it('50 concurrent wrong passwords through two verifiers: at most 5 reach a hasher', async () => {
      const [a, b] = stores()
      const hashers = [new SlowHasher(), new SlowHasher()]
      const verifiers = [a, b].map(
        (store, i) =>
          new CredentialVerifier(hashers[i]!, {
            login: new Budget('login', store, { attempts: 5, minutes: 1 }),
            ip: new Budget('ip', store, { attempts: 100, minutes: 60 }),
            account: new Budget('account', store, { attempts: 100, minutes: 60 }),
          }, new Logger({ sink: () => {} })),
      )
      const users = new FakeUserProvider()
      const email = `victim-${randomBytes(6).toString('hex')}@example.test`
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          verifiers[i % 2]!.verify(users, email, `wrong ${i}`, '203.0.113.80').then(
            () => 'wrong',
            (error: unknown) => (error instanceof BudgetExceededError ? 'refused' : `error ${(error as Error).message}`),
          ),
        ),
      )
      assert.equal(hashers[0]!.calls + hashers[1]!.calls, 5)
      assert.deepEqual([outcomes.filter((o) => o === 'wrong').length, outcomes.filter((o) => o === 'refused').length], [5, 45])
    })
  })
}

sharedContract(`DatabaseThrottleStore on ${driver}`, () => [
  new DatabaseThrottleStore(managers[0]!.connection(), { table }),
  new DatabaseThrottleStore(managers[1]!.connection(), { table }),
])

if (redisSkip) {
  describe('RedisThrottleStore: one budget across two processes', () => {
    it('runs against Redis', { skip: redisSkip }, () => {})
  })
} else {
  sharedContract('RedisThrottleStore', () => [new RedisThrottleStore(redisClients[0]!, { prefix }), new RedisThrottleStore(redisClients[1]!, { prefix })])
}
