/**
 * @module api/jwt/decode-segment
 * Strict decoding of a JWT header or payload segment: canonical base64url, then bytes that are
 * valid UTF-8 (no replacement characters, no byte-order mark), then JSON whose top level is an
 * object. Arrays, strings, numbers and `null` are refused, as RFC 7519 §7.2 asks.
 */
import { isCanonicalBase64url } from './base64url.js'
import { JwtInvalidError } from './errors.js'

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Decodes one segment to a JSON object, or throws `JwtInvalidError` naming the `part`.
 *
 * @example
 * decodeSegment('eyJhbGciOiJIUzUxMiJ9', 'header') // { alg: 'HS512' }
 */
export function decodeSegment(segment: string, part: 'header' | 'payload'): Record<string, unknown> {
  if (segment.length === 0 || !isCanonicalBase64url(segment)) {
    throw new JwtInvalidError(`The token ${part} is not canonical base64url.`)
  }
  let text: string
  try {
    text = utf8.decode(Buffer.from(segment, 'base64url'))
  } catch (cause) {
    throw new JwtInvalidError(`The token ${part} is not valid UTF-8.`, { cause })
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw new JwtInvalidError(`The token ${part} is not valid JSON.`, { cause })
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new JwtInvalidError(`The token ${part} is not a JSON object.`)
  }
  return value as Record<string, unknown>
}
