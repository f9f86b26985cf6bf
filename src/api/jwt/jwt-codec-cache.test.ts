/**
 * The accepted-token cache never accepts what a fresh verification would refuse: a codec with the
 * cache and one without (same key, same clock) must give the same answer, payload or error, for
 * valid tokens and for many mutations of them, while the clock moves past their expiry.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { JwtError } from './index.js'
import type { JwtCodec } from './index.js'
import { NOW, NOW_S, SECRET, b64, makeCodec, nonCanonicalTail, signSegments, type Hmac } from './jwt-codec.test-kit.js'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Outcome = { ok: true; payload: unknown } | { ok: false; error: string; code: string }

function outcome(codec: JwtCodec, token: string, options: { ignoreExpiration?: boolean }): Outcome {
  try {
    return { ok: true, payload: codec.verify(token, options) }
  } catch (error) {
    assert.ok(error instanceof JwtError, `not a JwtError: ${String(error)}`)
    return { ok: false, error: error.constructor.name, code: error.code }
  }
}

function segmentsOf(token: string): [string, string, string] {
  return token.split('.') as [string, string, string]
}

/** Every kind of mutation the test throws at the cached codec, applied to one valid token. */
function mutations(token: string, random: () => number): string[] {
  const [header, payload, signature] = segmentsOf(token)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const flip = (segment: string): string => {
    const at = Math.floor(random() * segment.length)
    let replacement = pick([...ALPHABET])
    while (replacement === segment[at]) replacement = pick([...ALPHABET])
    return segment.slice(0, at) + replacement + segment.slice(at + 1)
  }
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
  const resign = (h: unknown, p: unknown, hmac: Hmac = 'sha512', key = SECRET) => signSegments(b64(JSON.stringify(h)), b64(JSON.stringify(p)), hmac, key)
  const out = [
    // One character changed in each segment.
    `${flip(header)}.${payload}.${signature}`,
    `${header}.${flip(payload)}.${signature}`,
    `${header}.${payload}.${flip(signature)}`,
    // The same bytes spelled otherwise: spare bits set, padding, standard base64, whitespace.
    `${nonCanonicalTail(header)}.${payload}.${signature}`,
    `${header}.${nonCanonicalTail(payload)}.${signature}`,
    `${header}.${payload}.${nonCanonicalTail(signature)}`,
    `${header}=.${payload}.${signature}`,
    `${header}.${payload}==.${signature}`,
    `${header}.${payload}.${signature}=`,
    `${header}.${Buffer.from(payload, 'base64url').toString('base64')}.${signature}`,
    `${header}.${payload}.${Buffer.from(signature, 'base64url').toString('base64')}`,
    ` ${token}`,
    `${token} `,
    `${token}.`,
    `${header}.${payload}`,
    `${header}..${signature}`,
    // Another algorithm in the header (with and without a matching signature), or none.
    resign({ alg: 'HS256', typ: 'JWT' }, claims, 'sha256'),
    resign({ alg: 'HS384', typ: 'JWT' }, claims, 'sha384'),
    `${b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${payload}.${signature}`,
    `${b64(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${payload}.`,
    resign({ alg: 'HS512', typ: 'JOSE' }, claims),
    // Signed with another key.
    resign({ alg: 'HS512', typ: 'JWT' }, claims, 'sha512', 'x'.repeat(64)),
    // Claims that must be refused, properly signed.
    resign({ alg: 'HS512', typ: 'JWT' }, { ...claims, exp: NOW_S - 1 }),
    resign({ alg: 'HS512', typ: 'JWT' }, { ...claims, version: 2 }),
    resign({ alg: 'HS512', typ: 'JWT' }, { ...claims, nbf: NOW_S + 3600 }),
    resign({ alg: 'HS512', typ: 'JWT' }, { ...claims, iat: NOW_S + 3600 }),
    resign({ alg: 'HS512', typ: 'JWT' }, { ...claims, sub: '' }),
    resign({ alg: 'HS512', typ: 'JWT' }, { ...claims, exp: String(claims.exp ?? NOW_S + 60) }),
    // The same claims re-encoded with another key order: a different, validly signed token.
    resign({ typ: 'JWT', alg: 'HS512' }, claims),
  ]
  return out
}

describe('JwtCodec accepted-token cache', () => {
  for (const [label, size] of [['default size', 1000], ['tiny cache (constant eviction)', 4]] as const) {
    it(`gives the same answer as a fresh verification on mutated tokens (${label})`, () => {
      const random = prng(0x5eed + size)
      const clock = { now: NOW }
      const cached = makeCodec({ expires: 1 }, clock, size)
      const fresh = makeCodec({ expires: 1 }, clock, 0)
      let compared = 0
      let accepted = 0
      for (let round = 0; round < 40; round++) {
        // Tokens issued at this moment (60 s lifetime), verified once so they are cached.
        const tokens = Array.from({ length: 5 }, (_, i) => cached.sign(String(round * 10 + i)).token)
        for (const token of tokens) {
          assert.deepEqual(outcome(cached, token, {}), outcome(fresh, token, {}))
          for (const mutated of mutations(token, random)) {
            const options = random() < 0.25 ? { ignoreExpiration: true } : {}
            const a = outcome(cached, mutated, options)
            const b = outcome(fresh, mutated, options)
            assert.deepEqual(a, b, `cached and fresh differ on ${JSON.stringify(mutated)}`)
            compared++
            if (a.ok) accepted++
          }
          // The original is still answered as a fresh verification would, mutated spellings or not.
          assert.deepEqual(outcome(cached, token, {}), outcome(fresh, token, {}))
        }
        // Time passes: some of the cached tokens expire (1 minute lifetime).
        clock.now += Math.floor(random() * 40_000)
        for (const token of tokens) {
          for (const options of [{}, { ignoreExpiration: true }]) {
            assert.deepEqual(outcome(cached, token, options), outcome(fresh, token, options))
            compared++
          }
        }
      }
      assert.ok(compared > 5000, `compared ${compared}`)
      // Some mutations are valid tokens in their own right (another key order, properly signed).
      assert.ok(accepted > 0)
    })
  }

  it('an expired token is refused even though it was cached, and reauth still sees it', () => {
    const clock = { now: NOW }
    const codec = makeCodec({ expires: 1 }, clock, 10)
    const { token } = codec.sign('1')
    assert.equal(codec.verify(token).sub, '1')
    clock.now += 60_000
    assert.throws(() => codec.verify(token), (e: unknown) => e instanceof JwtError && e.code === 'E_JWT_EXPIRED')
    assert.equal(codec.verify(token, { ignoreExpiration: true }).sub, '1')
    // Reauth's acceptance of an expired token does not put it back into the cache.
    assert.throws(() => codec.verify(token), (e: unknown) => e instanceof JwtError && e.code === 'E_JWT_EXPIRED')
  })

  it('a codec with another version or key refuses what another codec cached', () => {
    const clock = { now: NOW }
    const v1 = makeCodec({ version: 1 }, clock)
    const { token } = v1.sign('1')
    assert.equal(v1.verify(token).sub, '1')
    assert.throws(() => makeCodec({ version: 2 }, clock).verify(token), (e: unknown) => e instanceof JwtError && e.code === 'E_JWT_VERSION_MISMATCH')
    assert.throws(() => makeCodec({ version: 1, secret: 'y'.repeat(64) }, clock).verify(token), (e: unknown) => e instanceof JwtError && e.code === 'E_JWT_INVALID')
  })

  it('hands out a fresh copy of the claims on every hit', () => {
    const codec = makeCodec()
    const { token } = codec.sign('1')
    const first = codec.verify(token)
    ;(first as Record<string, unknown>).sub = 'changed'
    assert.equal(codec.verify(token).sub, '1')
  })
})
