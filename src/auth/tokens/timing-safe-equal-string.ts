/**
 * @module auth/tokens/timing-safe-equal-string
 * Constant-time string comparison for secrets (CSRF tokens, token digests). Both sides are hashed
 * to a fixed length first, so neither the content nor the length of the expected value leaks
 * through timing.
 */
import { hash, timingSafeEqual } from 'node:crypto'

/**
 * `true` when `a` and `b` are the same string, in time that does not depend on where they differ
 * or on their lengths. Non-strings (e.g. a missing form field) are never equal to anything.
 *
 * @example
 * timingSafeEqualString(sha256Hex(presented), user.api_token)
 */
export function timingSafeEqualString(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false
  const left = hash('sha256', a, 'buffer')
  const right = hash('sha256', b, 'buffer')
  // The digests are equal in constant time; the final `a === b` only settles hash collisions.
  return timingSafeEqual(left, right) && a === b
}
