import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, createPublicKey, generateKeyPairSync, sign as cryptoSign } from 'node:crypto'
import { FrameworkError } from '../../foundation/framework-error.js'
import { JwtCodec, JwtInvalidError, jwkThumbprint, type AsymmetricAlgorithm } from './index.js'
import { loadAsymmetricKey, normalisePem } from './keys.js'
import { b64, decodeJson, NOW, NOW_S, rejects } from './jwt-codec.test-kit.js'

function privatePem(algorithm: AsymmetricAlgorithm | 'ES384' | 'RSA1024'): string {
  const pair =
    algorithm === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : algorithm === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : algorithm === 'ES384'
          ? generateKeyPairSync('ec', { namedCurve: 'P-384' })
          : generateKeyPairSync('rsa', { modulusLength: algorithm === 'RSA1024' ? 1024 : 2048 })
  return pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string
}

const KEYS = { EdDSA: privatePem('EdDSA'), ES256: privatePem('ES256'), RS256: privatePem('RS256') }
const clock = { now: NOW }
const codecFor = (algorithm: AsymmetricAlgorithm, config: Record<string, unknown> = {}) =>
  new JwtCodec({ algorithm, privateKey: KEYS[algorithm], expires: null, version: null, ...config }, { now: () => clock.now })
const publicPem = (pem: string) => createPublicKey(pem).export({ format: 'pem', type: 'spki' }) as string

/** Signs header.payload with node:crypto directly (JOSE signature form for ES256). */
function signWith(algorithm: AsymmetricAlgorithm, pem: string, header: object, payload: object): string {
  const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}`
  const signature =
    algorithm === 'EdDSA'
      ? cryptoSign(null, Buffer.from(input), pem)
      : algorithm === 'ES256'
        ? cryptoSign('sha256', Buffer.from(input), { key: pem, dsaEncoding: 'ieee-p1363' })
        : cryptoSign('sha256', Buffer.from(input), pem)
  return `${input}.${signature.toString('base64url')}`
}

for (const algorithm of ['EdDSA', 'ES256', 'RS256'] as const) {
  describe(`JwtCodec with ${algorithm}`, () => {
    const codec = codecFor(algorithm)

    it('signs with the private key, names the key (kid) in the header and verifies its own tokens', () => {
      const { token } = codec.sign(7)
      const header = decodeJson(token.split('.')[0]!) as Record<string, unknown>
      assert.deepEqual(header, { alg: algorithm, typ: 'JWT', kid: codec.kid })
      assert.equal(codec.verify(token).sub, '7')
    })

    it('uses the RFC 7638 thumbprint of the public key as kid, and publishes that key', () => {
      const jwk = createPublicKey(KEYS[algorithm]).export({ format: 'jwk' })
      assert.equal(codec.kid, jwkThumbprint(jwk))
      assert.equal(codec.publicJwk!.kid, codec.kid)
      assert.equal(codec.publicJwk!.alg, algorithm)
      assert.equal(codec.publicJwk!.use, 'sig')
      assert.equal((codec.publicJwk as Record<string, unknown>).d, undefined, 'no private member')
    })

    it('accepts a token signed elsewhere with the same key, kid and claims', () => {
      const token = signWith(algorithm, KEYS[algorithm], { alg: algorithm, typ: 'JWT', kid: codec.kid }, { sub: '1', iat: NOW_S - 5, version: null })
      assert.equal(codec.verify(token).sub, '1')
    })

    it('refuses a missing or different kid, and another key', () => {
      const payload = { sub: '1', iat: NOW_S - 5, version: null }
      rejects(codec, signWith(algorithm, KEYS[algorithm], { alg: algorithm, typ: 'JWT' }, payload))
      rejects(codec, signWith(algorithm, KEYS[algorithm], { alg: algorithm, typ: 'JWT', kid: 'other' }, payload))
      const other = privatePem(algorithm)
      rejects(codec, signWith(algorithm, other, { alg: algorithm, typ: 'JWT', kid: codec.kid }, payload))
    })

    it('refuses none and HMAC tokens keyed with the public key (algorithm confusion)', () => {
      const payload = { sub: '1', iat: NOW_S - 5, version: null }
      for (const alg of ['HS256', 'HS384', 'HS512']) {
        for (const key of [publicPem(KEYS[algorithm]), publicPem(KEYS[algorithm]).trim(), JSON.stringify(codec.publicJwk)]) {
          const input = `${b64(JSON.stringify({ alg, typ: 'JWT', kid: codec.kid }))}.${b64(JSON.stringify(payload))}`
          const token = `${input}.${createHmac(`sha${alg.slice(2)}`, key).update(input).digest('base64url')}`
          rejects(codec, token)
        }
      }
      const none = `${b64(JSON.stringify({ alg: 'none', typ: 'JWT', kid: codec.kid }))}.${b64(JSON.stringify(payload))}.`
      rejects(codec, none)
    })

    it('a codec built from the public key only verifies, and cannot sign', () => {
      const verifier = new JwtCodec({ algorithm, verifyKey: publicPem(KEYS[algorithm]), expires: null, version: null }, { now: () => clock.now })
      assert.equal(verifier.canSign, false)
      assert.equal(verifier.kid, codec.kid)
      assert.equal(verifier.verify(codec.sign(3).token).sub, '3')
      assert.throws(() => verifier.sign(1), (e: unknown) => e instanceof FrameworkError && e.code === 'E_JWT_VERIFY_ONLY')
    })
  })
}

describe('asymmetric keys', () => {
  it('refuses a key of another type than the algorithm, naming both', () => {
    assert.throws(() => codecFor('EdDSA', { privateKey: KEYS.ES256 }), (e: unknown) => e instanceof FrameworkError && e.code === 'E_JWT_KEY_MISMATCH' && /ES256/.test(e.message) && /EdDSA/.test(e.message))
    assert.throws(() => codecFor('RS256', { privateKey: KEYS.EdDSA }), (e: unknown) => e instanceof FrameworkError && e.code === 'E_JWT_KEY_MISMATCH')
  })

  it('refuses weak or unsupported keys: RSA under 2048 bits, P-384 for ES256', () => {
    assert.throws(() => codecFor('RS256', { privateKey: privatePem('RSA1024') }), (e: unknown) => e instanceof FrameworkError && e.code === 'E_JWT_KEY_INVALID' && /2048/.test(e.message))
    assert.throws(() => codecFor('ES256', { privateKey: privatePem('ES384') }), (e: unknown) => e instanceof FrameworkError && e.code === 'E_JWT_KEY_INVALID')
  })

  it('refuses a public key where the private key is needed', () => {
    assert.throws(() => codecFor('EdDSA', { privateKey: publicPem(KEYS.EdDSA) }), (e: unknown) => e instanceof FrameworkError && e.code === 'E_JWT_KEY_INVALID')
  })

  it('reads a one-line PEM with literal \\n, quoted or not, and a PEM in `secret`', () => {
    const oneLine = KEYS.EdDSA.trim().replace(/\n/g, '\\n')
    assert.equal(normalisePem(`"${oneLine}"`), KEYS.EdDSA.trim())
    const kid = codecFor('EdDSA').kid
    assert.equal(codecFor('EdDSA', { privateKey: oneLine }).kid, kid)
    assert.equal(new JwtCodec({ algorithm: 'EdDSA', secret: KEYS.EdDSA, expires: null, version: null }).kid, kid)
  })

  it('computes the RFC 7638 example thumbprint', () => {
    // RFC 7638 §3.1.
    const jwk = {
      kty: 'RSA',
      n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      e: 'AQAB',
      alg: 'RS256',
      kid: '2011-04-29',
    }
    assert.equal(jwkThumbprint(jwk), 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs')
  })

  it('gives each key its signature length', () => {
    assert.equal(loadAsymmetricKey(KEYS.EdDSA, { where: 'k' }).signatureLength, 86)
    assert.equal(loadAsymmetricKey(KEYS.ES256, { where: 'k' }).signatureLength, 86)
    assert.equal(loadAsymmetricKey(KEYS.RS256, { where: 'k' }).signatureLength, 342)
    // A token whose signature is one character short is refused before any crypto.
    const codec = codecFor('RS256')
    const token = codec.sign(1).token
    rejects(codec, token.slice(0, -1))
    assert.ok(new JwtInvalidError() instanceof Error)
  })
})
