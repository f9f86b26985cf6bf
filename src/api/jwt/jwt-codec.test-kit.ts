/**
 * Shared fixtures of the JwtCodec tests: a controllable clock and a forger that assembles
 * tokens by hand with node:crypto.
 */
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { HttpError } from '../../http/http-error.js'
import { JwtCodec, JwtError, JwtInvalidError } from './index.js'
import type { JwtCodecConfig } from './index.js'

export const SECRET = 'k'.repeat(64)
export const NOW = Date.UTC(2030, 0, 1, 12, 0, 0)
export const NOW_S = NOW / 1000
export const VALID_PAYLOAD = { sub: '1', iat: NOW_S - 10, jti: 'abc', version: null }
export const HEADER = { alg: 'HS512', typ: 'JWT' }
/** Header and payload whose base64url forms end mid-byte (spare bits, and padding in base64). */
export const SPARE_HEADER = { alg: 'HS512', typ: 'JWT', k: 12 }
export const SPARE_PAYLOAD = { ...VALID_PAYLOAD, sub: '12' }

export type Hmac = 'sha256' | 'sha384' | 'sha512'

export function b64(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url')
}

export function makeCodec(config: Partial<JwtCodecConfig> = {}, clock = { now: NOW }, cacheSize?: number): JwtCodec {
  return new JwtCodec(
    { algorithm: 'HS512', secret: SECRET, expires: null, version: null, ...config },
    { now: () => clock.now, cacheSize },
  )
}

/** Signs two already-encoded segments with the real secret. */
export function signSegments(header: string, payload: string, hmac: Hmac = 'sha512', key = SECRET): string {
  const input = `${header}.${payload}`
  return `${input}.${createHmac(hmac, key).update(input).digest('base64url')}`
}

/** A token with the given header and payload (objects or raw JSON text), signed with the real secret. */
export function forge(header: unknown = HEADER, payload: unknown = VALID_PAYLOAD, hmac: Hmac = 'sha512'): string {
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))
  return signSegments(b64(text(header)), b64(text(payload)), hmac)
}

export function decodeJson(segment: string): unknown {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
}

/** Replaces the last character of a segment with one that decodes to the same bytes. */
export function nonCanonicalTail(segment: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const index = alphabet.indexOf(segment.at(-1)!)
  const spare = segment.length % 4 === 2 ? 0b1111 : 0b11
  return segment.slice(0, -1) + alphabet[index | spare]
}

export function rejects(codec: JwtCodec, token: string, type: new (...args: never[]) => JwtError = JwtInvalidError, options = {}): void {
  assert.throws(() => codec.verify(token, options), (error: unknown) => {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`)
    assert.ok(!(error instanceof HttpError))
    return true
  })
}

// ---------------------------------------------------------------------------------------------
