import { test } from 'node:test'
import assert from 'node:assert/strict'
import { humanizeMinutes } from './duration.js'

test('minutes read as words, at most two units', () => {
  assert.equal(humanizeMinutes(1440), '24 hours')
  assert.equal(humanizeMinutes(60), '1 hour')
  assert.equal(humanizeMinutes(90), '1 hour and 30 minutes')
  assert.equal(humanizeMinutes(15), '15 minutes')
  assert.equal(humanizeMinutes(1), '1 minute')
  assert.equal(humanizeMinutes(0.5), '30 seconds')
  assert.equal(humanizeMinutes(10080), '7 days')
  assert.equal(humanizeMinutes(43200), '30 days')
  assert.equal(humanizeMinutes(2 * 1440 + 120), '2 days and 2 hours')
  assert.equal(humanizeMinutes('60'), '1 hour')
})

test('nothing to say for null, negative or non-numbers', () => {
  assert.equal(humanizeMinutes(null), '')
  assert.equal(humanizeMinutes(-5), '')
  assert.equal(humanizeMinutes('soon'), '')
})
