import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomToken, sha256Hex, timingSafeEqualString } from './index.js'

describe('randomToken', () => {
  it('returns 32 random bytes as base64url by default', () => {
    const token = randomToken()
    assert.match(token, /^[A-Za-z0-9_-]{43}$/)
    assert.equal(Buffer.from(token, 'base64url').length, 32)
  })

  it('honours the byte count and never repeats', () => {
    assert.equal(Buffer.from(randomToken(48), 'base64url').length, 48)
    const seen = new Set(Array.from({ length: 1000 }, () => randomToken()))
    assert.equal(seen.size, 1000)
  })

  it('refuses byte counts that are too small or not integers', () => {
    assert.throws(() => randomToken(8), RangeError)
    assert.throws(() => randomToken(20.5), RangeError)
  })
})

describe('sha256Hex', () => {
  it('matches the SHA-256 test vector', () => {
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })

  it('hashes the UTF-8 bytes of the string', () => {
    assert.equal(sha256Hex('é'), sha256Hex(Buffer.from('é', 'utf8')))
    assert.match(sha256Hex(''), /^[0-9a-f]{64}$/)
  })
})

describe('timingSafeEqualString', () => {
  it('is true only for identical strings', () => {
    assert.equal(timingSafeEqualString('abc', 'abc'), true)
    assert.equal(timingSafeEqualString('abc', 'abd'), false)
    assert.equal(timingSafeEqualString('abc', 'abcd'), false)
    assert.equal(timingSafeEqualString('', ''), true)
  })

  it('is false for non-strings', () => {
    assert.equal(timingSafeEqualString(undefined, undefined), false)
    assert.equal(timingSafeEqualString(null, 'null'), false)
    assert.equal(timingSafeEqualString(['a'], 'a'), false)
  })
})
