import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { restartDelay } from './serve-command.js'

describe('restartDelay: replacing crashed workers', () => {
  it('replaces an isolated crash at once', () => {
    assert.equal(restartDelay([1_000], 1_000), 0)
  })

  it('doubles from 250 ms per crash within the last minute, up to 30 s', () => {
    const now = 100_000
    const delays = [2, 3, 4, 5, 10, 20].map((n) => restartDelay(Array.from({ length: n }, (_, i) => now - i * 100), now))
    assert.deepEqual(delays, [250, 500, 1000, 2000, 30_000, 30_000])
  })

  it('forgets crashes older than a minute', () => {
    const now = 200_000
    const times = [now - 120_000, now - 90_000, now - 61_000, now]
    assert.equal(restartDelay(times, now), 0)
    assert.deepEqual(times, [now])
  })
})
