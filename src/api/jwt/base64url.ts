/**
 * @module api/jwt/base64url
 * Canonical base64url (RFC 4648 §5, no padding) as RFC 7515 requires for every JWS segment.
 * A lenient decoder maps several strings to the same bytes (padding, stray characters, set bits
 * after the last full byte); accepting those would let anyone mint new spellings of a valid
 * token, so they are refused.
 */

const ALPHABET = /^[A-Za-z0-9_-]*$/

/** Value (0–63) of one base64url character code; only called on characters the regex allowed. */
function sextet(code: number): number {
  if (code >= 65 && code <= 90) return code - 65 // A-Z
  if (code >= 97 && code <= 122) return code - 71 // a-z
  if (code >= 48 && code <= 57) return code + 4 // 0-9
  return code === 45 ? 62 : 63 // '-' or '_'
}

/**
 * `true` when `segment` is exactly what base64url-encoding its decoded bytes gives back: only
 * `[A-Za-z0-9_-]`, no padding, no impossible length, and zero bits after the last byte. Runs in
 * one regex pass; equivalent to `Buffer.from(s, 'base64url').toString('base64url') === s`.
 */
export function isCanonicalBase64url(segment: string): boolean {
  if (!ALPHABET.test(segment)) return false
  const remainder = segment.length % 4
  if (remainder === 0) return true
  if (remainder === 1) return false
  const last = sextet(segment.charCodeAt(segment.length - 1))
  // Two trailing characters carry one byte (4 spare bits); three carry two bytes (2 spare bits).
  return remainder === 2 ? (last & 0b1111) === 0 : (last & 0b11) === 0
}

/** Encodes bytes or a UTF-8 string as canonical base64url. */
export function encodeBase64url(value: string | Uint8Array): string {
  return Buffer.from(value).toString('base64url')
}
