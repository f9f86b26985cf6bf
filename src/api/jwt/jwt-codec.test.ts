import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, generateKeyPairSync, sign as rsaSign } from 'node:crypto'
import { HttpError } from '../../http/http-error.js'
import { JwtError, JwtExpiredError, JwtInvalidError, JwtVersionMismatchError } from './index.js'
import { NOW_S, VALID_PAYLOAD, HEADER, SPARE_HEADER, SPARE_PAYLOAD, b64, makeCodec, signSegments, forge, decodeJson, nonCanonicalTail, rejects} from './jwt-codec.test-kit.js'

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
})
