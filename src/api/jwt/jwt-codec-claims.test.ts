import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { JwtError, JwtExpiredError, JwtInvalidError, JwtVersionMismatchError, sha256Hex } from './index.js'
import { NOW, NOW_S, VALID_PAYLOAD, HEADER, b64, makeCodec, signSegments, forge, rejects} from './jwt-codec.test-kit.js'

describe('JwtCodec', () => {
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
