/**
 * The memory store is bounded in entries and bytes, and filling it never ends an active lockout:
 * when it is full, ended windows go first, then the oldest window that is not a lockout; when
 * only lockouts are left, a new key is refused (fail closed) rather than one of them dropped.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Logger } from '../../support/logger.js'
import { FakeHasher } from '../../testing/fake-hasher.js'
import { FakeUserProvider } from '../../testing/fake-user-provider.js'
import { sha256Hex } from '../tokens/sha256-hex.js'
import { CredentialVerifier } from '../credential-verifier.js'
import { Budget } from './budget.js'
import { MEMORY_ENTRY_BYTES, MemoryThrottleStore } from './memory-throttle-store.js'

function fakeClock() {
  const clock = { now: Date.UTC(2030, 0, 1) }
  return { now: () => clock.now, advance: (ms: number) => void (clock.now += ms) }
}

describe('MemoryThrottleStore: a fixed size', () => {
  it('capacity is the smaller of maxEntries and maxBytes / MEMORY_ENTRY_BYTES', () => {
    assert.equal(new MemoryThrottleStore({ maxEntries: 10, maxBytes: 1e9 }).capacity, 10)
    assert.equal(new MemoryThrottleStore({ maxEntries: 1e6, maxBytes: 100 * MEMORY_ENTRY_BYTES }).capacity, 100)
    const defaults = new MemoryThrottleStore()
    assert.ok(defaults.capacity * MEMORY_ENTRY_BYTES <= 32 * 1024 * 1024, 'the default fits in 32 MiB')
    assert.throws(() => new MemoryThrottleStore({ maxBytes: 10 }), RangeError)
  })

  it('10,000 huge keys: entries and bytes stay within the bound, each key kept as a 64-character digest', async () => {
    const store = new MemoryThrottleStore({ maxBytes: 500 * MEMORY_ENTRY_BYTES })
    const huge = (i: number) => `${i}:${'x'.repeat(5000)}@example.test`
    for (let i = 0; i < 10_000; i++) await store.hit(huge(i), 60, 5)
    assert.equal(store.size, 500)
    assert.ok(store.bytes <= store.maxBytes)
    assert.equal((await store.get(huge(9_999)))?.count, 1)
    assert.equal((await store.get(sha256Hex(huge(9_999))))?.count, 1, 'stored under its digest, not the 5 KB key')
  })

  it('10,000 oversized identifiers through the verifier create no state; 10,000 long valid ones stay within the bound', async () => {
    const store = new MemoryThrottleStore({ maxBytes: 1000 * MEMORY_ENTRY_BYTES })
    const budgets = {
      login: new Budget('login', store, { attempts: 5, minutes: 1 }),
      ip: new Budget('ip', store, null),
      account: new Budget('account', store, { attempts: 100, minutes: 60 }),
    }
    const hasher = new FakeHasher()
    const verifier = new CredentialVerifier(hasher, budgets, new Logger({ sink: () => {} }))
    const users = new FakeUserProvider()
    for (let i = 0; i < 10_000; i++) await verifier.verify(users, `${i}${'x'.repeat(400)}@example.test`, 'password', '192.0.2.1')
    assert.equal(store.size, 0)
    assert.equal(hasher.calls, 0)
    for (let i = 0; i < 10_000; i++) await verifier.verify(users, `${i}${'y'.repeat(300)}@example.test`, 'password', '192.0.2.1')
    assert.equal(store.size, 1000)
    assert.ok(store.bytes <= 1000 * MEMORY_ENTRY_BYTES)
    assert.equal(hasher.calls, 10_000)
  })
})

describe('MemoryThrottleStore: a flood of other keys never ends a lockout', () => {
  it("a victim's lockout survives 10,000 other keys in a store of 100", async () => {
    const clock = fakeClock()
    const store = new MemoryThrottleStore({ maxEntries: 100, now: clock.now })
    const budget = new Budget('login', store, { attempts: 5, minutes: 1 })
    const victim = budget.key('victim@example.test', '203.0.113.1')
    for (let i = 0; i < 5; i++) assert.equal(await budget.take(victim), null)
    assert.equal(await budget.take(victim), 60, 'locked')
    for (let i = 0; i < 10_000; i++) await budget.take(budget.key(`flood${i}@example.test`, '198.51.100.1'))
    assert.equal(store.size, 100)
    assert.equal(await budget.take(victim), 60, 'still locked after the flood')
    clock.advance(60_000)
    assert.equal(await budget.take(victim), null, 'the window ends as it should')
  })

  it('ended windows go first, then the oldest that is not locked', async () => {
    const clock = fakeClock()
    const store = new MemoryThrottleStore({ maxEntries: 3, now: clock.now })
    for (let i = 0; i < 2; i++) await store.hit('locked', 60, 2)
    await store.hit('short', 1, 2)
    await store.hit('open', 60, 2)
    clock.advance(2000)
    await store.hit('new1', 60, 2)
    assert.equal(await store.get('short'), null, 'the ended window went first')
    assert.equal((await store.get('open'))?.count, 1)
    await store.hit('new2', 60, 2)
    assert.equal(await store.get('open'), null, 'then the oldest window that is not a lockout')
    assert.equal((await store.get('locked'))?.count, 2, 'the lockout, older than both, stays')
    assert.equal(store.lockouts, 1)
  })

  it('a store full of lockouts refuses new keys (fail closed) until one ends', async () => {
    const clock = fakeClock()
    const store = new MemoryThrottleStore({ maxEntries: 3, now: clock.now })
    const budget = new Budget('login', store, { attempts: 2, minutes: 1 })
    for (const k of ['a', 'b', 'c']) for (let i = 0; i < 2; i++) await budget.take(k)
    assert.equal(store.lockouts, 3)
    const refused = await budget.takeSlot('newcomer')
    assert.equal(refused.ok, false)
    assert.ok(!refused.ok && refused.retryAfter === 60 && !refused.first)
    assert.equal(store.size, 3)
    for (const k of ['a', 'b', 'c']) assert.equal((await store.get(k))?.count, 2, `lockout ${k} kept`)
    clock.advance(60_000)
    assert.equal(await budget.take('newcomer'), null, 'room again once the lockouts end')
  })

  it('a lockout that ends behind one still running is found (at most one full scan a second)', async () => {
    const clock = fakeClock()
    const store = new MemoryThrottleStore({ maxEntries: 2, now: clock.now })
    // Same window length; 'late' opens first but locks last, so it is behind 'early' in lock order.
    await store.hit('late', 10, 2)
    clock.advance(5000)
    await store.hit('early', 10, 1)
    await store.hit('late', 10, 2)
    clock.advance(6000) // 'late' (opened at 0) has ended; 'early' (opened at 5 s) has not
    assert.equal((await store.hit('new', 10, 2)).count, 1)
    assert.equal((await store.get('early'))?.count, 1)
  })
})
