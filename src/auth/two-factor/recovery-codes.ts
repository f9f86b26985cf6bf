/**
 * @module auth/two-factor/recovery-codes
 * Recovery codes: each 16 characters of Crockford's base32 (80 random bits), shown as
 * `xxxx-xxxx-xxxx-xxxx`. Typing is forgiving: case, spaces and dashes do not matter, and the
 * letters people mistake for digits (O, I, L) read as 0, 1, 1. Only the SHA-256 of the normalised
 * code is stored: 80 random bits need no slow hash.
 */
import { randomBytes } from 'node:crypto'
import { sha256Hex } from '../tokens/index.js'

/** Crockford's base32 alphabet: no I, L, O or U. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
const LENGTH = 16

/** How many codes a user gets. */
export const RECOVERY_CODE_COUNT = 10

/** A new code, `xxxx-xxxx-xxxx-xxxx` (lower case). */
export function generateRecoveryCode(): string {
  // 10 bytes = 80 bits = 16 characters of 5 bits.
  const bytes = randomBytes(10)
  let bits = 0n
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte)
  let code = ''
  for (let i = LENGTH - 1; i >= 0; i--) code += ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)]
  return code.match(/.{4}/g)!.join('-')
}

/** `RECOVERY_CODE_COUNT` new codes, all different. */
export function generateRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const codes = new Set<string>()
  while (codes.size < count) codes.add(generateRecoveryCode())
  return [...codes]
}

/**
 * The canonical form of what a user typed (16 upper-case characters), or null when it cannot be a
 * code (not a string, too long, wrong characters or length).
 */
export function normalizeRecoveryCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 64) return null
  const code = input
    .replace(/[\s-]+/g, '')
    .toUpperCase()
    .replaceAll('O', '0')
    .replace(/[IL]/g, '1')
  return code.length === LENGTH && /^[0-9A-HJKMNP-TV-Z]+$/.test(code) ? code : null
}

/** The digest a code is stored under (`two_factor_recovery_codes.code_hash`), or null for a non-code. */
export function recoveryCodeHash(input: unknown): string | null {
  const code = normalizeRecoveryCode(input)
  return code === null ? null : sha256Hex(code)
}
