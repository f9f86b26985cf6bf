import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { crc32 as zlibCrc32 } from 'node:zlib'
import { BASE62, base62, checksumOf, crc32, formatToken, looksPersonal, parseToken, randomSecret, TOKEN_PATTERN } from './token-format.js'
import { firstMissing, normalizeAbilities } from './abilities.js'

describe('personal access token format', () => {
  it('is trw_<id>_<40 base62><6 base62 checksum>', () => {
    const token = formatToken(42, randomSecret())
    assert.match(token, /^trw_42_[A-Za-z0-9]{40}[A-Za-z0-9]{6}$/)
    assert.match(token, TOKEN_PATTERN)
    assert.deepEqual(parseToken(token), { id: '42' })
    assert.ok(looksPersonal(token))
  })

  it('CRC-32 is the standard IEEE one (check value of "123456789" is 0xCBF43926)', () => {
    assert.equal(crc32('123456789'), 0xcbf43926)
    assert.equal(crc32(''), 0)
    // Node's zlib has it since 20.15/22.2; compare when present.
    if (typeof zlibCrc32 === 'function') for (const s of ['trw_1_abc', 'x'.repeat(100)]) assert.equal(crc32(s), zlibCrc32(s))
  })

  it('the checksum is the CRC-32 of everything before it, in base62, padded to 6', () => {
    assert.equal(base62(0, 6), '000000')
    assert.equal(base62(61, 6), '00000z')
    assert.equal(base62(62, 6), '000010')
    assert.equal(base62(0xffffffff, 6), '4gfFC3')
    const secret = 'A'.repeat(40)
    const body = `trw_7_${secret}`
    assert.equal(formatToken(7, secret), body + checksumOf(body))
    // Re-implemented from the documented algorithm, as a scanner would.
    let n = crc32(body)
    let digits = ''
    for (let i = 0; i < 6; i++) {
      digits = BASE62[n % 62] + digits
      n = Math.floor(n / 62)
    }
    assert.equal(checksumOf(body), digits)
  })

  it('refuses a changed character, a wrong length, another prefix or a non-string, without a lookup', () => {
    const token = formatToken(5, randomSecret())
    const last = token.at(-1)!
    assert.equal(parseToken(token.slice(0, -1) + (last === 'a' ? 'b' : 'a')), null)
    const mid = 10
    assert.equal(parseToken(token.slice(0, mid) + (token[mid] === 'a' ? 'b' : 'a') + token.slice(mid + 1)), null)
    assert.equal(parseToken(token + 'a'), null)
    assert.equal(parseToken(token.slice(1)), null)
    assert.equal(parseToken(token.replace('trw_', 'trx_')), null)
    assert.equal(parseToken('trw_0_' + token.slice(6)), null)
    assert.equal(parseToken(undefined), null)
    assert.equal(parseToken('trw_' + 'x'.repeat(500)), null)
  })

  it('secrets are uniform base62 and never repeat', () => {
    const seen = new Set<string>()
    const counts = new Map<string, number>()
    for (let i = 0; i < 2000; i++) {
      const s = randomSecret()
      assert.match(s, /^[0-9A-Za-z]{40}$/)
      seen.add(s)
      for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1)
    }
    assert.equal(seen.size, 2000)
    assert.equal(counts.size, 62)
    // 80,000 characters over 62 symbols: about 1290 each; a modulo bias would skew the first ones.
    for (const n of counts.values()) assert.ok(n > 1000 && n < 1600, `count ${n}`)
  })
})

describe('abilities', () => {
  it('normalises lists and comma strings; refuses odd names', () => {
    assert.deepEqual(normalizeAbilities('posts:write, posts:read,posts:read'), ['posts:read', 'posts:write'])
    assert.deepEqual(normalizeAbilities(['*']), ['*'])
    assert.deepEqual(normalizeAbilities(undefined), [])
    assert.throws(() => normalizeAbilities('posts read"'), RangeError)
    assert.throws(() => normalizeAbilities([1]), RangeError)
  })

  it('every listed ability is needed; * covers all', () => {
    assert.equal(firstMissing(['posts:read'], ['posts:read']), null)
    assert.equal(firstMissing(['posts:read'], ['posts:read', 'posts:write']), 'posts:write')
    assert.equal(firstMissing(['*'], ['a', 'b']), null)
    assert.equal(firstMissing([], ['a']), 'a')
  })
})
