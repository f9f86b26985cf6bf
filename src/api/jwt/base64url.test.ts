import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { encodeBase64url, isCanonicalBase64url } from './base64url.js'
import { decodeSegment } from './decode-segment.js'
import { JwtInvalidError } from './errors.js'

describe('isCanonicalBase64url', () => {
  it('accepts what Buffer encodes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => isCanonicalBase64url(encodeBase64url(bytes))))
  })

  it('agrees with a decode/re-encode round trip on any string', () => {
    const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/. \n'
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...chars), { maxLength: 40 }), (list) => {
        const text = list.join('')
        const roundTrip = /^[A-Za-z0-9_-]*$/.test(text) && Buffer.from(text, 'base64url').toString('base64url') === text
        return isCanonicalBase64url(text) === roundTrip
      }),
      { numRuns: 5000 },
    )
  })

  it('refuses padding, other alphabets, impossible lengths and set spare bits', () => {
    for (const bad of ['QQ==', 'QQ=', 'a+b/', 'A', 'AAAAA', 'QR', 'QUF', 'QUJ']) assert.equal(isCanonicalBase64url(bad), false, bad)
    for (const good of ['', 'QQ', 'QUE', 'QUJD', '-_-_']) assert.equal(isCanonicalBase64url(good), true, good)
  })
})

describe('decodeSegment', () => {
  it('decodes a JSON object', () => {
    assert.deepEqual(decodeSegment(encodeBase64url('{"a":[1]}'), 'header'), { a: [1] })
  })

  it('refuses everything else with JwtInvalidError', () => {
    const cases = [
      '',
      'QQ==',
      encodeBase64url('[1]'),
      encodeBase64url('null'),
      encodeBase64url('"x"'),
      encodeBase64url('{"a":1'),
      encodeBase64url(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])),
      encodeBase64url('\uFEFF{}'),
    ]
    for (const segment of cases) assert.throws(() => decodeSegment(segment, 'payload'), JwtInvalidError, segment)
  })
})
