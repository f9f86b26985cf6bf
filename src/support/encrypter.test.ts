import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Encrypter } from './encrypter.js'

const KEY = 'k'.repeat(40)
const OLD = 'base64:' + Buffer.alloc(32, 7).toString('base64')
const PLACE = 'users.totp_secret:1'

describe('Encrypter', () => {
  it('round-trips, with a fresh IV each time, in the v1 format', () => {
    const e = new Encrypter(KEY)
    const a = e.encrypt('JBSWY3DPEHPK3PXP', PLACE)
    const b = e.encrypt('JBSWY3DPEHPK3PXP', PLACE)
    assert.match(a, /^v1\.[A-Za-z0-9_-]+$/)
    assert.notEqual(a, b)
    assert.ok(!a.includes('JBSWY3DPEHPK3PXP'))
    assert.deepEqual(e.decrypt(a, PLACE), { value: 'JBSWY3DPEHPK3PXP', rotated: false })
  })

  it('binds the value to its place: another context does not decrypt', () => {
    const e = new Encrypter(KEY)
    const a = e.encrypt('secret', PLACE)
    assert.equal(e.decrypt(a, 'users.totp_secret:2'), undefined)
  })

  it('refuses altered, truncated, foreign and non-canonical values', () => {
    const e = new Encrypter(KEY)
    const a = e.encrypt('secret', PLACE)
    const body = a.slice(3)
    const flipped = 'v1.' + (body[5] === 'A' ? body.slice(0, 5) + 'B' : body.slice(0, 5) + 'A') + body.slice(6)
    for (const bad of [flipped, a.slice(0, 20), 'v2.' + body, body, '', 'v1.', null, 42, a + '=']) assert.equal(e.decrypt(bad, PLACE), undefined, String(bad))
    assert.equal(new Encrypter('x'.repeat(40)).decrypt(a, PLACE), undefined)
  })

  it('decrypts with a previous key and says so; encrypts with the current one', () => {
    const old = new Encrypter(OLD)
    const stored = old.encrypt('secret', PLACE)
    const rotated = new Encrypter(KEY, [OLD])
    assert.deepEqual(rotated.decrypt(stored, PLACE), { value: 'secret', rotated: true })
    const again = rotated.encrypt('secret', PLACE)
    assert.deepEqual(rotated.decrypt(again, PLACE), { value: 'secret', rotated: false })
    assert.equal(old.decrypt(again, PLACE), undefined)
  })

  it('uses a key of its own, not the cookie keys', async () => {
    const { CookieJar } = await import('../http/cookie-jar.js')
    const jar = new CookieJar(KEY)
    const cookie = jar.pack(PLACE, 'secret', 'encrypted')
    // Same AES-GCM layout, different derived key: the cookie does not decrypt here.
    assert.equal(new Encrypter(KEY).decrypt('v1.' + cookie.slice(2), PLACE), undefined)
  })
})
