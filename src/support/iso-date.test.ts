import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { isoDate } from './iso-date.js'

describe('isoDate', () => {
  it('writes what toISOString writes, across the years it formats itself and their edges', () => {
    const edges = [
      0, -1, 1, 86_399_999, 86_400_000, -86_400_000, 951_782_400_000 /* 2000-02-29 */, 4_107_542_400_000 /* 2100-03-01 */,
      -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000, -8.64e15, 8.64e15,
      Date.UTC(1900, 1, 28, 23, 59, 59, 999), Date.UTC(1600, 1, 29), Date.UTC(1969, 11, 31, 23, 59, 59, 999),
    ]
    let seed = 7
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31)
    const samples = [...edges, ...Array.from({ length: 20_000 }, () => Math.floor((random() - 0.5) * 2 * 2.6e14))]
    for (const ms of samples) assert.equal(isoDate(new Date(ms)), new Date(ms).toISOString(), `at ${ms}`)
  })

  it('answers from its kept strings only for the same instant: instants sharing a slot, negative ones, repeats', () => {
    const base = Date.UTC(2026, 10, 28, 9, 31, 32)
    // 64 ms apart share a slot; so do -1 and 63 (ToInt32 then the low 6 bits).
    const instants = [base, base + 64, base, base + 64 * 1024, -1, 63, -1, -65, base + 1, base]
    for (let round = 0; round < 3; round++) {
      for (const ms of instants) assert.equal(isoDate(new Date(ms)), new Date(ms).toISOString(), `at ${ms}`)
    }
  })

  it('throws the same RangeError as toISOString for an invalid date', () => {
    assert.throws(() => isoDate(new Date(Number.NaN)), RangeError)
  })
})
