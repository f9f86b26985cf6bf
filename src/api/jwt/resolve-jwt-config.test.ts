import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { FrameworkError } from '../../foundation/framework-error.js'
import { JwtCodec, MIN_SECRET_BYTES } from './index.js'
import type { JwtCodecConfig } from './index.js'

const SECRET = 's'.repeat(64)

function build(config: Partial<Record<keyof JwtCodecConfig, unknown>>): JwtCodec {
  return new JwtCodec({ algorithm: 'HS512', secret: SECRET, expires: null, version: null, ...config } as JwtCodecConfig)
}

function throwsFrameworkError(config: Partial<Record<keyof JwtCodecConfig, unknown>>, code: string, ...mentions: string[]): void {
  assert.throws(() => build(config), (error: unknown) => {
    assert.ok(error instanceof FrameworkError, `expected FrameworkError, got ${String(error)}`)
    assert.equal(error.code, code)
    for (const text of mentions) assert.ok(error.message.includes(text), `"${error.message}" should mention ${text}`)
    return true
  })
}

describe('JwtCodec configuration', () => {
  it('refuses a missing secret, naming JWT_SECRET and api:install', () => {
    for (const secret of [undefined, null, '']) {
      throwsFrameworkError({ secret }, 'E_JWT_SECRET_MISSING', 'JWT_SECRET', 'node craft api:install')
    }
  })

  it('refuses a secret shorter than 32 UTF-8 bytes', () => {
    assert.equal(MIN_SECRET_BYTES, 32)
    throwsFrameworkError({ secret: 'x'.repeat(31) }, 'E_JWT_SECRET_TOO_SHORT', 'JWT_SECRET', 'node craft api:install', '31 bytes')
    // 15 two-byte characters are 30 bytes although the string is 15 long; 16 are exactly 32.
    throwsFrameworkError({ secret: 'é'.repeat(15) }, 'E_JWT_SECRET_TOO_SHORT', 'JWT_SECRET')
    assert.ok(build({ secret: 'é'.repeat(16) }))
    assert.ok(build({ secret: 'x'.repeat(32) }))
  })

  it('refuses a secret that is not a string', () => {
    throwsFrameworkError({ secret: Buffer.alloc(64) }, 'E_JWT_SECRET_MISSING', 'JWT_SECRET')
  })

  it('accepts the HMAC algorithms and EdDSA, ES256, RS256, naming config/api.ts otherwise', () => {
    for (const algorithm of ['HS256', 'HS384', 'HS512']) assert.equal(build({ algorithm }).algorithm, algorithm)
    for (const algorithm of ['none', 'hs512', 'HS1024', 'eddsa', undefined, 512]) {
      throwsFrameworkError({ algorithm }, 'E_JWT_ALGORITHM_UNSUPPORTED', 'config/api.ts', 'HS256, HS384, HS512, EdDSA, ES256, RS256')
    }
    for (const algorithm of ['RS384', 'PS512', 'ES384']) {
      throwsFrameworkError({ algorithm }, 'E_JWT_ALGORITHM_UNSUPPORTED', 'config/api.ts', 'only EdDSA, ES256 and RS256')
    }
  })

  it('asks for JWT_PRIVATE_KEY (and api:install --algorithm) with an asymmetric algorithm', () => {
    for (const algorithm of ['EdDSA', 'ES256', 'RS256']) {
      for (const privateKey of [undefined, null, '']) {
        throwsFrameworkError({ algorithm, secret: undefined, privateKey }, 'E_JWT_PRIVATE_KEY_MISSING', 'JWT_PRIVATE_KEY', `api:install --algorithm ${algorithm}`)
      }
    }
    // An HMAC secret is not a private key.
    throwsFrameworkError({ algorithm: 'EdDSA', privateKey: SECRET }, 'E_JWT_KEY_INVALID', 'JWT_PRIVATE_KEY', 'PEM')
  })

  it('reads expires as minutes, fractions allowed, null for never', () => {
    assert.equal(build({ expires: null }).lifetimeSeconds, null)
    assert.equal(build({ expires: undefined }).lifetimeSeconds, null)
    assert.equal(build({ expires: 0.05 }).lifetimeSeconds, 3)
    assert.equal(build({ expires: 1440 }).lifetimeSeconds, 86_400)
    // Under half a second rounds to 0 s: exp = iat, a token that is expired at once.
    assert.equal(build({ expires: 0.001 }).lifetimeSeconds, 0)
    for (const expires of [0, -1, '60', Number.POSITIVE_INFINITY, Number.NaN]) {
      throwsFrameworkError({ expires }, 'E_JWT_CONFIG_INVALID', 'config/api.ts', 'expires')
    }
  })

  it('reads version as a number or null', () => {
    assert.equal(build({ version: null }).version, null)
    assert.equal(build({ version: undefined }).version, null)
    assert.equal(build({ version: 0 }).version, 0)
    assert.equal(build({ version: 2 }).version, 2)
    for (const version of ['1', true, Number.NaN]) {
      throwsFrameworkError({ version }, 'E_JWT_CONFIG_INVALID', 'config/api.ts', 'version')
    }
  })

  it('reads leeway as seconds, 0 by default', () => {
    assert.equal(build({}).leewaySeconds, 0)
    assert.equal(build({ leeway: 30 }).leewaySeconds, 30)
    throwsFrameworkError({ leeway: -1 }, 'E_JWT_CONFIG_INVALID', 'config/api.ts', 'leeway')
  })

  it('ignores the guard keys of the driver config', () => {
    class User {}
    const codec = new JwtCodec({ algorithm: 'HS512', secret: SECRET, model: User, expires: null, authenticates: false, version: null } as JwtCodecConfig)
    assert.equal(codec.algorithm, 'HS512')
  })
})
