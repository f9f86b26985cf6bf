import { test } from 'node:test'
import assert from 'node:assert/strict'
import { bag } from './bag.js'

test('a bag inherits nothing, like Object.create(null)', () => {
  const b = bag()
  for (const key of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', '__defineGetter__']) {
    assert.equal(b[key], undefined, key)
    assert.equal(key in b, false, key)
  }
  assert.deepEqual(Object.keys(b), [])
  assert.equal(JSON.stringify(b), '{}')
})

test('setting __proto__ or constructor on a bag makes an own key and changes no prototype', () => {
  const b = bag()
  b['__proto__'] = { polluted: true }
  b['constructor'] = 'c'
  assert.deepEqual(Object.keys(b), ['__proto__', 'constructor'])
  assert.equal(b['polluted'], undefined)
  assert.equal(bag()['__proto__'], undefined)
  assert.equal(bag()['constructor'], undefined)
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined)
})

test("the bags' shared prototype cannot be given keys", () => {
  const proto = Object.getPrototypeOf(bag()) as Record<string, unknown>
  assert.equal(Object.getPrototypeOf(proto), null)
  assert.ok(Object.isFrozen(proto))
  assert.throws(() => {
    proto['x'] = 1
  }, TypeError)
  assert.equal(bag()['x'], undefined)
})

test('bag(from) copies the own enumerable keys, and spreads and serializes as a plain object', () => {
  const source = Object.assign(Object.create({ inherited: 1 }) as Record<string, unknown>, { a: 1, b: [2] })
  const b = bag(source)
  assert.deepEqual(Object.keys(b), ['a', 'b'])
  assert.equal(b['inherited'], undefined)
  assert.deepEqual({ ...b }, { a: 1, b: [2] })
  assert.equal(JSON.stringify(b), '{"a":1,"b":[2]}')
  assert.deepEqual(Object.keys(bag(null)), [])
  assert.deepEqual(Object.keys(bag(undefined)), [])
})
