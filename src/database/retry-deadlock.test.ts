import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { isDeadlock, retryOnDeadlock } from './retry-deadlock.js'

describe('retryOnDeadlock', () => {
  it('recognises MySQL/MariaDB and PostgreSQL deadlocks only', () => {
    assert.equal(isDeadlock(Object.assign(new Error('Deadlock found'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 })), true)
    assert.equal(isDeadlock(Object.assign(new Error('deadlock detected'), { code: '40P01' })), true)
    assert.equal(isDeadlock(Object.assign(new Error('duplicate'), { code: 'ER_DUP_ENTRY', errno: 1062 })), false)
    assert.equal(isDeadlock(null), false)
  })

  it('runs again after a deadlock, gives up after the attempts, and never retries other errors', async () => {
    const deadlock = Object.assign(new Error('Deadlock found'), { code: 'ER_LOCK_DEADLOCK' })
    let calls = 0
    assert.equal(await retryOnDeadlock(async () => (++calls < 3 ? Promise.reject(deadlock) : 'done')), 'done')
    assert.equal(calls, 3)
    calls = 0
    await assert.rejects(retryOnDeadlock(async () => (++calls, Promise.reject(deadlock)), 2), (e: unknown) => e === deadlock)
    assert.equal(calls, 2)
    calls = 0
    const other = new Error('other')
    await assert.rejects(retryOnDeadlock(async () => (++calls, Promise.reject(other))), (e: unknown) => e === other)
    assert.equal(calls, 1)
  })
})
