import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, generateKeyPairSync, sign as rsaSign } from 'node:crypto'
import fc from 'fast-check'
import { HttpError } from '../../http/http-error.js'
import { JwtCodec, JwtError, JwtExpiredError, JwtInvalidError, JwtVersionMismatchError, sha256Hex } from './index.js'
import type { JwtCodecConfig } from './index.js'

// ---------------------------------------------------------------------------------------------
// Helpers: a controllable clock and a forger that assembles tokens by hand with node:crypto.

const SECRET = 'k'.repeat(64)
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0)
const NOW_S = NOW / 1000
const VALID_PAYLOAD = { sub: '1', iat: NOW_S - 10, jti: 'abc', version: null }
const HEADER = { alg: 'HS512', typ: 'JWT' }
/** Header and payload whose base64url forms end mid-byte (spare bits, and padding in base64). */
const SPARE_HEADER = { alg: 'HS512', typ: 'JWT', k: 12 }
const SPARE_PAYLOAD = { ...VALID_PAYLOAD, sub: '12' }

type Hmac = 'sha256' | 'sha384' | 'sha512'

function b64(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url')
}

function makeCodec(config: Partial<JwtCodecConfig> = {}, clock = { now: NOW }, cacheSize?: number): JwtCodec {
  return new JwtCodec(
    { algorithm: 'HS512', secret: SECRET, expires: null, version: null, ...config },
    { now: () => clock.now, cacheSize },
  )
}

/** Signs two already-encoded segments with the real secret. */
function signSegments(header: string, payload: string, hmac: Hmac = 'sha512', key = SECRET): string {
  const input = `${header}.${payload}`
  return `${input}.${createHmac(hmac, key).update(input).digest('base64url')}`
}

/** A token with the given header and payload (objects or raw JSON text), signed with the real secret. */
function forge(header: unknown = HEADER, payload: unknown = VALID_PAYLOAD, hmac: Hmac = 'sha512'): string {
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))
  return signSegments(b64(text(header)), b64(text(payload)), hmac)
}

function decodeJson(segment: string): unknown {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
}

/** Replaces the last character of a segment with one that decodes to the same bytes. */
function nonCanonicalTail(segment: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const index = alphabet.indexOf(segment.at(-1)!)
  const spare = segment.length % 4 === 2 ? 0b1111 : 0b11
  return segment.slice(0, -1) + alphabet[index | spare]
}

function rejects(codec: JwtCodec, token: string, type: new (...args: never[]) => JwtError = JwtInvalidError, options = {}): void {
  assert.throws(() => codec.verify(token, options), (error: unknown) => {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`)
    assert.ok(!(error instanceof HttpError))
    return true
  })
}

// ---------------------------------------------------------------------------------------------

describe('JwtCodec', () => {
  describe('sign', () => {
    it('issues a token whose header is exactly {"alg":"HS512","typ":"JWT"}', () => {
      const { token } = makeCodec().sign(1)
      const [header] = token.split('.')
      assert.equal(Buffer.from(header!, 'base64url').toString('utf8'), '{"alg":"HS512","typ":"JWT"}')
    })

    it('carries sub as a string, iat, a random jti and the configured version', () => {
      const codec = makeCodec({ version: 3 })
      const { token, payload } = codec.sign(42)
      assert.deepEqual(decodeJson(token.split('.')[1]!), payload)
      assert.equal(payload.sub, '42')
      assert.equal(payload.iat, NOW_S)
      assert.equal(payload.version, 3)
      assert.match(payload.jti, /^[A-Za-z0-9_-]{22,}$/)
      assert.ok(Buffer.from(payload.jti, 'base64url').length >= 16)
      assert.notEqual(codec.sign(42).payload.jti, payload.jti)
      assert.equal('exp' in payload, false)
    })

    it('writes version null when none is configured', () => {
      const { token } = makeCodec().sign('7')
      assert.deepEqual(Object.keys(decodeJson(token.split('.')[1]!) as object), ['sub', 'iat', 'jti', 'version'])
      assert.equal((decodeJson(token.split('.')[1]!) as { version: unknown }).version, null)
    })

    it('sets exp = iat + round(expires × 60), fractions allowed', () => {
      assert.equal(makeCodec({ expires: 60 }).sign(1).payload.exp, NOW_S + 3600)
      assert.equal(makeCodec({ expires: 0.05 }).sign(1).payload.exp, NOW_S + 3)
      assert.equal(makeCodec({ expires: 1.5 }).sign(1).payload.exp, NOW_S + 90)
    })

    it('uses the configured HMAC algorithm in the header', () => {
      for (const algorithm of ['HS256', 'HS384', 'HS512']) {
        const codec = makeCodec({ algorithm })
        const { token } = codec.sign(1)
        assert.deepEqual(decodeJson(token.split('.')[0]!), { alg: algorithm, typ: 'JWT' })
        assert.equal(codec.verify(token).sub, '1')
      }
    })

    it('refuses an empty subject', () => {
      assert.throws(() => makeCodec().sign(''), { name: 'FrameworkError' })
      assert.throws(() => makeCodec().sign(Number.NaN), { name: 'FrameworkError' })
    })
  })

  describe('verify', () => {
    it('round-trips a signed token', () => {
      const codec = makeCodec({ expires: 10, version: 2 })
      const { token, payload } = codec.sign(5)
      assert.deepEqual(codec.verify(token), payload)
      assert.deepEqual(codec.verify(token), payload, 'the cached result is the same')
    })

    it('accepts a hand-forged token signed with the secret', () => {
      assert.equal(makeCodec().verify(forge()).sub, '1')
    })

    it('uses the UTF-8 bytes of the secret as the HMAC key', () => {
      const secret = 'é'.repeat(20)
      const codec = makeCodec({ secret })
      const token = signSegments(b64(JSON.stringify(HEADER)), b64(JSON.stringify(VALID_PAYLOAD)), 'sha512', secret)
      assert.equal(codec.verify(token).sub, '1')
    })

    it('returns a copy that cannot poison the cache', () => {
      const codec = makeCodec()
      const token = forge(HEADER, { ...VALID_PAYLOAD, extra: { role: 'user' } })
      const first = codec.verify(token)
      first.sub = '2'
      assert.throws(() => {
        ;(first.extra as { role: string }).role = 'admin'
      }, TypeError)
      assert.equal(codec.verify(token).sub, '1')
      assert.deepEqual(codec.verify(token).extra, { role: 'user' })
    })

    it('never throws an HttpError', () => {
      for (const ErrorClass of [JwtInvalidError, JwtExpiredError, JwtVersionMismatchError]) {
        assert.ok(ErrorClass.prototype instanceof JwtError)
        assert.ok(!(ErrorClass.prototype instanceof HttpError))
      }
    })
  })

  describe('verify: structure', () => {
    const codec = makeCodec()

    it('rejects anything but exactly three segments', () => {
      const token = forge()
      const [h, p, s] = token.split('.')
      for (const bad of ['', '.', '..', `${h}.${p}`, `${h}.${p}.${s}.${s}`, `${token}.`, `.${token}`, h!]) {
        rejects(codec, bad)
      }
    })

    it('rejects non-strings and oversized input', () => {
      rejects(codec, undefined as unknown as string)
      rejects(codec, 42 as unknown as string)
      rejects(codec, 'a'.repeat(10_000))
    })

    it('rejects a flipped byte in each segment', () => {
      const token = forge()
      for (let segment = 0; segment < 3; segment++) {
        const parts = token.split('.')
        const bytes = Buffer.from(parts[segment]!, 'base64url')
        bytes[Math.floor(bytes.length / 2)]! ^= 0x01
        parts[segment] = bytes.toString('base64url')
        rejects(codec, parts.join('.'))
      }
    })

    it('rejects padded base64, even when the padded form is what was signed', () => {
      const h = b64(JSON.stringify(SPARE_HEADER))
      const p = b64(JSON.stringify(SPARE_PAYLOAD))
      const pad = (segment: string) => segment + '='.repeat((4 - (segment.length % 4)) % 4)
      assert.ok(pad(h) !== h && pad(p) !== p, 'fixture needs padding')
      const token = signSegments(h, p)
      assert.equal(codec.verify(token).sub, '12')
      const s = token.split('.')[2]!
      rejects(codec, signSegments(pad(h), p))
      rejects(codec, signSegments(h, pad(p)))
      rejects(codec, `${h}.${p}.${pad(s)}`)
      rejects(codec, `${pad(h)}.${p}.${s}`)
    })

    it('rejects standard base64 characters and whitespace', () => {
      const token = forge(HEADER, { ...VALID_PAYLOAD, sub: '>>>???' })
      const [h, p, s] = token.split('.')
      rejects(codec, signSegments(h!, p!.replace(/-/g, '+').replace(/_/g, '/')))
      rejects(codec, `${h} .${p}.${s}`)
      rejects(codec, `${h}.${p}.${s}\n`)
    })

    it('rejects a non-canonical last character in each segment', () => {
      const header = b64(JSON.stringify(SPARE_HEADER))
      const payload = b64(JSON.stringify(SPARE_PAYLOAD))
      const token = signSegments(header, payload)
      const [h, p, s] = token.split('.') as [string, string, string]
      assert.ok(h.length % 4 !== 0 && p.length % 4 !== 0 && s.length % 4 !== 0, 'fixture needs spare bits')
      assert.equal(codec.verify(token).sub, '12')
      assert.deepEqual(Buffer.from(nonCanonicalTail(s), 'base64url'), Buffer.from(s, 'base64url'))
      rejects(codec, `${h}.${p}.${nonCanonicalTail(s)}`)
      rejects(codec, signSegments(nonCanonicalTail(h), p))
      rejects(codec, signSegments(h, nonCanonicalTail(p)))
    })

    it('rejects headers and payloads that are not JSON objects', () => {
      for (const bad of ['[]', '["HS512"]', '"HS512"', 'null', '1', 'true', '{', '']) {
        rejects(codec, forge(bad, VALID_PAYLOAD))
        rejects(codec, forge(HEADER, bad))
      }
      rejects(codec, forge(HEADER, JSON.stringify([VALID_PAYLOAD])))
    })

    it('rejects bytes that are not valid UTF-8', () => {
      const payload = Buffer.concat([Buffer.from('{"sub":"1'), Buffer.from([0xff, 0xfe]), Buffer.from(`","iat":${NOW_S},"version":null}`)])
      rejects(codec, signSegments(b64(JSON.stringify(HEADER)), payload.toString('base64url')))
      rejects(codec, signSegments(b64(JSON.stringify(HEADER)), payload.toString('base64url')), JwtInvalidError, {})
      const header = Buffer.concat([Buffer.from('{"alg":"HS512","typ":"JWT","x":"'), Buffer.from([0xc3]), Buffer.from('"}')])
      rejects(codec, signSegments(header.toString('base64url'), b64(JSON.stringify(VALID_PAYLOAD))))
      // An overlong encoding of '/' (0xc0 0xaf) is invalid UTF-8 too.
      const overlong = Buffer.concat([Buffer.from('{"sub":"'), Buffer.from([0xc0, 0xaf]), Buffer.from(`","iat":${NOW_S},"version":null}`)])
      rejects(codec, signSegments(b64(JSON.stringify(HEADER)), overlong.toString('base64url')))
    })

    it('rejects a byte-order mark before the JSON', () => {
      rejects(codec, forge(`\uFEFF${JSON.stringify(HEADER)}`, VALID_PAYLOAD))
      rejects(codec, forge(HEADER, `\uFEFF${JSON.stringify(VALID_PAYLOAD)}`))
    })
  })

  describe('verify: algorithm and header', () => {
    const codec = makeCodec()
    const payload = b64(JSON.stringify(VALID_PAYLOAD))

    it('rejects alg none with an empty signature, in any spelling', () => {
      for (const alg of ['none', 'None', 'nOnE', 'NONE']) {
        rejects(codec, `${b64(JSON.stringify({ alg, typ: 'JWT' }))}.${payload}.`)
        rejects(codec, signSegments(b64(JSON.stringify({ alg, typ: 'JWT' })), payload))
      }
    })

    it('rejects other HMACs signed with the real secret', () => {
      rejects(codec, forge({ alg: 'HS256', typ: 'JWT' }, VALID_PAYLOAD, 'sha256'))
      rejects(codec, forge({ alg: 'HS384', typ: 'JWT' }, VALID_PAYLOAD, 'sha384'))
      rejects(codec, forge({ alg: 'HS256', typ: 'JWT' }, VALID_PAYLOAD, 'sha512'))
      rejects(makeCodec({ algorithm: 'HS256' }), forge(HEADER, VALID_PAYLOAD, 'sha512'))
    })

    it('rejects an HS512 signature under a header naming another algorithm', () => {
      for (const alg of ['hs512', 'HS512 ', 'RS512', 'PS512', 'ES512', ['HS512'], null]) {
        rejects(codec, forge({ alg, typ: 'JWT' }))
      }
      rejects(codec, forge({ typ: 'JWT' }))
    })

    it('rejects RS256, ES256 and PS256 tokens', () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
      for (const alg of ['RS256', 'PS256']) {
        const input = `${b64(JSON.stringify({ alg, typ: 'JWT' }))}.${payload}`
        rejects(codec, `${input}.${rsaSign('sha256', Buffer.from(input), privateKey).toString('base64url')}`)
      }
      const input = `${b64(JSON.stringify({ alg: 'ES256', typ: 'JWT' }))}.${payload}`
      rejects(codec, `${input}.${b64(Buffer.alloc(64, 1))}`)
      // An RS256 header over a valid-length HMAC signature made with the secret (key confusion).
      rejects(codec, forge({ alg: 'RS256', typ: 'JWT' }))
    })

    it('accepts typ JWT or no typ, and rejects any other typ', () => {
      assert.equal(codec.verify(forge({ alg: 'HS512' })).sub, '1')
      for (const typ of ['jwt', 'JWS', 'at+jwt', '', 1, null]) {
        rejects(codec, forge({ alg: 'HS512', typ }))
      }
    })

    it('ignores kid, jku, jwk and x5u (nothing is fetched)', () => {
      const header = {
        alg: 'HS512',
        typ: 'JWT',
        kid: '../../etc/passwd',
        jku: 'http://127.0.0.1:1/jwks.json',
        jwk: { kty: 'oct', k: b64('attacker') },
        x5u: 'http://127.0.0.1:1/cert.pem',
      }
      assert.equal(codec.verify(forge(header)).sub, '1')
      // The attacker's embedded key does not help a token signed with it.
      const input = `${b64(JSON.stringify(header))}.${payload}`
      rejects(codec, `${input}.${createHmac('sha512', 'attacker').update(input).digest('base64url')}`)
    })

    it('rejects unknown critical header extensions', () => {
      rejects(codec, forge({ ...HEADER, crit: ['exp'], exp: 1 }))
    })
  })

  describe('verify: claims', () => {
    const codec = makeCodec()
    const claims = (extra: Record<string, unknown>, drop: string[] = []) => {
      const payload: Record<string, unknown> = { ...VALID_PAYLOAD, ...extra }
      for (const key of drop) delete payload[key]
      return forge(HEADER, payload)
    }

    it('requires sub to be a non-empty string', () => {
      rejects(codec, claims({}, ['sub']))
      for (const sub of ['', 1, null, ['1'], { id: 1 }]) rejects(codec, claims({ sub }))
    })

    it('requires a numeric iat that is not in the future', () => {
      rejects(codec, claims({}, ['iat']))
      for (const iat of ['1', null, true]) rejects(codec, claims({ iat }))
      rejects(codec, claims({ iat: NOW_S + 1 }))
      assert.equal(codec.verify(claims({ iat: NOW_S })).sub, '1')
    })

    it('rejects an nbf in the future or not a number', () => {
      rejects(codec, claims({ nbf: NOW_S + 1 }))
      rejects(codec, claims({ nbf: '0' }))
      assert.equal(codec.verify(claims({ nbf: NOW_S })).sub, '1')
    })

    it('rejects an exp that is not a number, even when expiry is ignored', () => {
      for (const exp of ['9999999999', null, {}]) {
        rejects(codec, claims({ exp }))
        rejects(codec, claims({ exp }), JwtInvalidError, { ignoreExpiration: true })
      }
    })

    it('rejects a jti that is not a string', () => {
      rejects(codec, claims({ jti: 1 }))
    })

    it('requires the version claim to equal the configured one', () => {
      rejects(codec, claims({}, ['version']), JwtVersionMismatchError)
      rejects(codec, claims({ version: 1 }), JwtVersionMismatchError)
      rejects(codec, claims({ version: 0 }), JwtVersionMismatchError)
      rejects(codec, claims({ version: 'null' }), JwtVersionMismatchError)
      const v2 = makeCodec({ version: 2 })
      assert.equal(v2.verify(claims({ version: 2 })).version, 2)
      rejects(v2, claims({ version: null }), JwtVersionMismatchError)
      rejects(v2, claims({}, ['version']), JwtVersionMismatchError)
      rejects(v2, claims({ version: 3 }), JwtVersionMismatchError)
      rejects(v2, claims({ version: '2' }), JwtVersionMismatchError)
      rejects(v2, makeCodec({ version: 3 }).sign(1).token, JwtVersionMismatchError)
    })

    it('checks the version also when expiry is ignored (reauth)', () => {
      rejects(makeCodec({ version: 2 }), claims({ version: 1, exp: NOW_S - 100 }), JwtVersionMismatchError, { ignoreExpiration: true })
    })
  })

  describe('verify: expiry and clock', () => {
    it('expires tokens at exp and accepts them with ignoreExpiration', () => {
      const clock = { now: NOW }
      const codec = makeCodec({ expires: 0.05 }, clock)
      const { token, payload } = codec.sign(1)
      assert.equal(payload.exp, NOW_S + 3)
      clock.now = NOW + 2999
      assert.equal(codec.verify(token).sub, '1')
      clock.now = NOW + 3000
      rejects(codec, token, JwtExpiredError)
      assert.deepEqual(codec.verify(token, { ignoreExpiration: true }), payload)
      const instant = makeCodec({ expires: 0.001 }, clock).sign(1)
      assert.equal(instant.payload.exp, instant.payload.iat)
      rejects(codec, instant.token, JwtExpiredError)
      clock.now = NOW + 365 * 86_400_000
      assert.deepEqual(codec.verify(token, { ignoreExpiration: true }), payload)
    })

    it('reports expiry only for tokens that are valid in every other respect', () => {
      const codec = makeCodec({ version: 1 })
      const expired = { ...VALID_PAYLOAD, version: 1, exp: NOW_S - 1 }
      rejects(codec, forge(HEADER, expired), JwtExpiredError)
      rejects(codec, forge(HEADER, { ...expired, version: 2 }), JwtVersionMismatchError)
      rejects(codec, forge(HEADER, { ...expired, sub: '' }), JwtInvalidError)
      const [h, p] = forge(HEADER, expired).split('.')
      rejects(codec, `${h}.${p}.${'A'.repeat(86)}`, JwtInvalidError)
    })

    it('honours the configured leeway and no leeway by default', () => {
      const strict = makeCodec()
      const lenient = makeCodec({ leeway: 5 })
      const future = forge(HEADER, { ...VALID_PAYLOAD, iat: NOW_S + 4 })
      const justExpired = forge(HEADER, { ...VALID_PAYLOAD, exp: NOW_S - 4 })
      const notBefore = forge(HEADER, { ...VALID_PAYLOAD, nbf: NOW_S + 4 })
      for (const token of [future, justExpired, notBefore]) {
        rejects(strict, token, token === justExpired ? JwtExpiredError : JwtInvalidError)
        assert.equal(lenient.verify(token).sub, '1')
      }
      rejects(lenient, forge(HEADER, { ...VALID_PAYLOAD, iat: NOW_S + 6 }))
    })

    it('re-checks time claims on cache hits', () => {
      const clock = { now: NOW }
      const codec = makeCodec({ expires: 1 }, clock)
      const { token } = codec.sign(1)
      assert.equal(codec.verify(token).sub, '1')
      clock.now = NOW + 61_000
      rejects(codec, token, JwtExpiredError)
      clock.now = NOW - 1000
      rejects(codec, token, JwtInvalidError)
    })

    it('works the same with the cache disabled', () => {
      const codec = makeCodec({}, { now: NOW }, 0)
      assert.equal(codec.verify(forge()).sub, '1')
      assert.equal(codec.verify(forge()).sub, '1')
      rejects(codec, forge().slice(0, -2) + 'AA')
      rejects(codec, forge(HEADER, { ...VALID_PAYLOAD, version: 1 }), JwtVersionMismatchError)
    })

    it('keeps refusing a signed non-UTF-8 token after it entered the cache', () => {
      const codec = makeCodec()
      const payload = Buffer.concat([Buffer.from('{"sub":"1","iat":1,"version":null,"x":"'), Buffer.from([0xff]), Buffer.from('"}')])
      const token = signSegments(b64(JSON.stringify(HEADER)), payload.toString('base64url'))
      rejects(codec, token)
      rejects(codec, token)
    })
  })

  describe('sha256Hex', () => {
    it('is the digest stored in the token column', () => {
      const { token } = makeCodec().sign(1)
      assert.match(sha256Hex(token), /^[0-9a-f]{64}$/)
      assert.notEqual(sha256Hex(token), sha256Hex(makeCodec().sign(1).token))
    })
  })

  describe('property: hostile input', () => {
    const codec = makeCodec({ expires: 60, version: 1 })
    const valid = codec.sign(99).token

    function onlyJwtErrors(token: string): boolean {
      try {
        codec.verify(token)
        return false
      } catch (error) {
        return error instanceof JwtError
      }
    }

    it('never verifies random strings and only throws JwtError', () => {
      const jwtish = fc.array(fc.stringMatching(/^[A-Za-z0-9_=+/.-]{0,120}$/), { minLength: 0, maxLength: 5 }).map((parts) => parts.join('.'))
      fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 300 }), jwtish), onlyJwtErrors), {
        numRuns: 2000,
      })
    })

    it('never verifies a mutation of a valid token', () => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ '
      const mutation = fc.oneof(
        fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), char: fc.constantFrom(...alphabet) }),
        fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char: fc.constantFrom(...alphabet) }),
        fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), char: fc.constant('') }),
      )
      fc.assert(
        fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (mutations) => {
          let token = valid
          for (const { kind, at, char } of mutations) {
            const i = at % (token.length + 1)
            if (kind === 'replace') token = token.slice(0, i) + char + token.slice(i + 1)
            else if (kind === 'insert') token = token.slice(0, i) + char + token.slice(i)
            else token = token.slice(0, i) + token.slice(i + 1)
          }
          fc.pre(token !== valid)
          return onlyJwtErrors(token)
        }),
        { numRuns: 3000 },
      )
    })

    it('never verifies a token whose decoded segments were altered and re-encoded', () => {
      const [h, p, s] = valid.split('.') as [string, string, string]
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 2 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (segment, at, xor) => {
          const parts = [h, p, s]
          const bytes = Buffer.from(parts[segment]!, 'base64url')
          bytes[at % bytes.length]! ^= xor
          parts[segment] = bytes.toString('base64url')
          return onlyJwtErrors(parts.join('.'))
        }),
        { numRuns: 2000 },
      )
    })
  })
})
