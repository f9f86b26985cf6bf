/**
 * @module auth/tokens/sha256-hex
 * The digest under which opaque tokens are stored: only the SHA-256 of a token ever reaches the
 * database, so a leaked table row cannot be replayed as a cookie, reset link or bearer token.
 */
import { hash } from 'node:crypto'

/**
 * Lower-case hex SHA-256 of the UTF-8 bytes of `value` (64 characters).
 *
 * @example
 * sha256Hex('abc') // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function sha256Hex(value: string | Uint8Array): string {
  // One-shot `crypto.hash` (Node >= 20.12): about a third of the cost of createHash() for a token.
  return hash('sha256', value, 'hex')
}
