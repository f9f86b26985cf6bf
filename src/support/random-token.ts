/**
 * @module support/random-token
 * Opaque random tokens (session ids, CSRF tokens, login cookies, password reset links): bytes from the
 * operating system's CSPRNG, encoded base64url without padding so they are safe in URLs,
 * cookies and headers as they are.
 */
import { randomBytes } from 'node:crypto'

/**
 * Returns `bytes` random bytes (default 32, i.e. 256 bits) encoded base64url without padding.
 *
 * @example
 * const token = randomToken() // 43 characters, e.g. 'q3V0...'
 */
export function randomToken(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes < 16 || bytes > 1024) {
    throw new RangeError(`randomToken(bytes) needs an integer from 16 to 1024, got ${String(bytes)}.`)
  }
  return randomBytes(bytes).toString('base64url')
}
