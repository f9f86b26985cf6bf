import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { CookieJar } from './cookie-jar.js'

const KEY = 'base64:' + Buffer.alloc(32, 7).toString('base64')

describe('CookieJar', () => {
  it('signed values round-trip; tampering and renaming are rejected', () => {
    const jar = new CookieJar(KEY)
    const packed = jar.pack('a', 'hello')
    assert.equal(jar.unpack('a', packed), 'hello')
    assert.equal(jar.unpack('b', packed), undefined)
    const tampered = packed.slice(0, 3) + (packed[3] === 'A' ? 'B' : 'A') + packed.slice(4)
    assert.equal(jar.unpack('a', tampered), undefined)
    assert.equal(jar.unpack('a', 'hello'), undefined)
  })

  it('encrypted values round-trip and are opaque', () => {
    const jar = new CookieJar(KEY)
    const packed = jar.pack('s', 'secret data', 'encrypted')
    assert.equal(packed.includes('secret'), false)
    assert.equal(jar.unpack('s', packed), 'secret data')
    assert.equal(jar.unpack('t', packed), undefined)
  })

  it('another spelling of the same bytes (base64url spare bits in the last character) is refused', () => {
    const jar = new CookieJar(KEY)
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    for (const packed of [jar.pack('a', 'hello'), jar.pack('s', 'secret data!', 'encrypted')]) {
      const name = packed.startsWith('e.') ? 's' : 'a'
      assert.ok(jar.unpack(name, packed), 'the genuine cookie (control)')
      const tail = packed.slice(packed.lastIndexOf('.') + 1)
      const variants = [...ALPHABET]
        .map((c) => packed.slice(0, -1) + c)
        .filter((v) => v !== packed && Buffer.from(v.slice(v.lastIndexOf('.') + 1), 'base64url').equals(Buffer.from(tail, 'base64url')))
      assert.ok(variants.length > 0, 'the value has spare bits to vary')
      for (const variant of variants) assert.equal(jar.unpack(name, variant), undefined, variant.slice(-6))
    }
  })

  it('a foreign key is refused; a previous key still verifies', () => {
    const other = 'base64:' + Buffer.alloc(32, 9).toString('base64')
    const old = new CookieJar(other).pack('a', 'v')
    assert.equal(new CookieJar(KEY).unpack('a', old), undefined)
    assert.equal(new CookieJar(KEY, [other]).unpack('a', old), 'v')
  })

  it('keeps the values that passed, by their exact text and name, and answers them again', () => {
    const jar = new CookieJar(KEY)
    const signed = jar.pack('a', 'hello')
    const encrypted = jar.pack('s', 'secret data', 'encrypted')
    assert.equal(jar.isKept(signed), false)
    assert.equal(jar.unpack('a', signed), 'hello')
    assert.equal(jar.unpack('s', encrypted), 'secret data')
    assert.ok(jar.isKept(signed) && jar.isKept(encrypted))
    for (let i = 0; i < 3; i++) {
      assert.equal(jar.unpack('a', signed), 'hello')
      assert.equal(jar.unpack('s', encrypted), 'secret data')
    }
    // A kept value under another name is refused, as before, and does not replace what is kept.
    assert.equal(jar.unpack('b', signed), undefined)
    assert.equal(jar.unpack('t', encrypted), undefined)
    assert.equal(jar.unpack('a', signed), 'hello')
    assert.equal(jar.unpack('s', encrypted), 'secret data')
    // What fails is never kept.
    const tampered = encrypted.slice(0, -2) + (encrypted.at(-2) === 'A' ? 'B' : 'A') + encrypted.at(-1)
    assert.equal(jar.unpack('s', tampered), undefined)
    assert.equal(jar.isKept(tampered), false)
    assert.equal(jar.unpack('a', 'hello'), undefined)
    assert.equal(jar.isKept('hello'), false)
  })

  it('a jar with another key refuses what this one kept; a value is kept per jar', () => {
    const jar = new CookieJar(KEY)
    const packed = jar.pack('s', 'secret data', 'encrypted')
    assert.equal(jar.unpack('s', packed), 'secret data')
    const other = new CookieJar('base64:' + Buffer.alloc(32, 9).toString('base64'))
    assert.equal(other.unpack('s', packed), undefined)
    assert.equal(other.isKept(packed), false)
  })

  it('keeps at most openedCacheSize values, the oldest out first; 0 keeps none', () => {
    const jar = new CookieJar(KEY, [], { openedCacheSize: 2 })
    const [a, b, c] = ['1', '2', '3'].map((v) => jar.pack('a', v))
    for (const packed of [a, b, c]) jar.unpack('a', packed!)
    assert.deepEqual([a, b, c].map((p) => jar.isKept(p!)), [false, true, true])
    assert.equal(jar.unpack('a', a!), '1')
    assert.deepEqual([a, b, c].map((p) => jar.isKept(p!)), [true, false, true])

    const none = new CookieJar(KEY, [], { openedCacheSize: 0 })
    const packed = none.pack('s', 'secret data', 'encrypted')
    assert.equal(none.unpack('s', packed), 'secret data')
    assert.equal(none.unpack('s', packed), 'secret data')
    assert.equal(none.isKept(packed), false)
  })

  it('a kept value does not keep the request\'s whole Cookie header alive', () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const jar = new CookieJar(KEY)
    gc()
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < 300; i++) {
      // The value as the cookie parser hands it over: a slice of a 16 KB header.
      const header = `pad=${'x'.repeat(16_000)}${i}; s=${jar.pack('s', `v${i}`, 'encrypted')}`
      const packed = header.slice(header.indexOf('; s=') + 4)
      assert.equal(jar.unpack('s', packed), `v${i}`)
      assert.ok(jar.isKept(packed))
    }
    gc()
    // 300 headers of 16 KB would be about 4.8 MB; the kept values themselves are a few dozen KB.
    assert.ok(process.memoryUsage().heapUsed - before < 1_500_000, `${process.memoryUsage().heapUsed - before} bytes kept`)
  })
})
