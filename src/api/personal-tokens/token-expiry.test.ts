import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_EXPIRY_DAYS, formExpiryMinutes, parseDuration } from './token-expiry.js'

const DAY = 24 * 60

describe('personal access token expiry', () => {
  it('the form and JSON: days, 90 days when absent, never only when asked for', () => {
    assert.equal(DEFAULT_EXPIRY_DAYS, 90)
    for (const absent of [undefined, null, '']) assert.equal(formExpiryMinutes(absent), 90 * DAY)
    assert.equal(formExpiryMinutes('30'), 30 * DAY)
    assert.equal(formExpiryMinutes(' 7 '), 7 * DAY)
    assert.equal(formExpiryMinutes(365), 365 * DAY)
    assert.equal(formExpiryMinutes('none'), null)
    assert.equal(formExpiryMinutes('Never'), null)
    for (const bad of ['0', '-1', '1.5', 'soon', '99999', 3661, true, {}, ['30']]) assert.throws(() => formExpiryMinutes(bad), RangeError, String(bad))
  })

  it('--expires: d, h and m units; a bare number is minutes; anything else is refused', () => {
    assert.equal(parseDuration('90d'), 90 * DAY)
    assert.equal(parseDuration('12h'), 720)
    assert.equal(parseDuration('30m'), 30)
    assert.equal(parseDuration('1.5h'), 90)
    assert.equal(parseDuration('60'), 60)
    assert.equal(parseDuration('0.02'), 0.02)
    assert.equal(parseDuration('2D'), 2 * DAY)
    for (const bad of ['', 'soon', '0', '0d', '-5', '5 d', '5w', 'd', '1e3', '4000d']) {
      assert.throws(() => parseDuration(bad), (e: Error) => e instanceof RangeError && !e.message.includes('\n'), bad)
    }
  })
})
