/**
 * @module api/personal-tokens/token-format
 * The shape of a personal access token: `trw_<id>_<secret><checksum>`, e.g.
 * `trw_42_Xq3...(40 chars)...0aZk9Q`.
 *
 * - `trw_`: a fixed prefix, so secret scanners (and people) recognise a Trowel token in a log,
 *   a commit or a paste.
 * - `<id>`: the token's row id in `personal_access_tokens`, in decimal (which token leaked).
 * - `<secret>`: 40 characters of base62 (`0-9A-Za-z`) from the operating system's CSPRNG,
 *   about 238 bits.
 * - `<checksum>`: CRC-32 (IEEE 802.3, the zlib/PNG one) of the ASCII text `trw_<id>_<secret>`,
 *   as an unsigned 32-bit number written in base62 with the same alphabet (`0` = 0 … `9` = 9,
 *   `A` = 10 … `Z` = 35, `a` = 36 … `z` = 61), most significant digit first, left-padded with `0`
 *   to exactly 6 characters.
 *
 * The checksum is not a secret: it lets a scanner (or the server, before any database query)
 * tell a real token from a random string offline, cutting false positives. Only the SHA-256 of
 * the whole token is stored.
 */
import { randomBytes } from 'node:crypto'

export const TOKEN_PREFIX = 'trw_'
export const SECRET_LENGTH = 40
export const CHECKSUM_LENGTH = 6
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** The whole grammar, for scanners: `trw_`, a decimal id, 40 + 6 base62 characters. */
export const TOKEN_PATTERN = /^trw_([1-9][0-9]{0,18})_([0-9A-Za-z]{40})([0-9A-Za-z]{6})$/

let crcTable: Uint32Array | undefined

function table(): Uint32Array {
  if (crcTable) return crcTable
  crcTable = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    crcTable[n] = c >>> 0
  }
  return crcTable
}

/** CRC-32 (IEEE, reflected, polynomial 0xEDB88320) of an ASCII/latin-1 string. */
export function crc32(text: string): number {
  const t = table()
  let crc = 0xffffffff
  for (let i = 0; i < text.length; i++) crc = t[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

/** `value` (a non-negative integer) in base62, left-padded with `0` to `width` characters. */
export function base62(value: number, width: number): string {
  let out = ''
  let n = value
  do {
    out = BASE62[n % 62]! + out
    n = Math.floor(n / 62)
  } while (n > 0)
  return out.padStart(width, '0')
}

/** The 6-character checksum of `trw_<id>_<secret>`. */
export function checksumOf(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH)
}

/** 40 uniformly random base62 characters (rejection sampling: no modulo bias). */
export function randomSecret(length = SECRET_LENGTH): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes above it would favour the first characters of the alphabet.
      if (byte < 248) out += BASE62[byte % 62]
      if (out.length === length) break
    }
  }
  return out
}

/** The token for row `id` and `secret`: `trw_<id>_<secret><checksum>`. */
export function formatToken(id: number | string, secret: string): string {
  const body = `${TOKEN_PREFIX}${String(id)}_${secret}`
  return body + checksumOf(body)
}

/** Whether a Bearer value is meant as a personal access token (rather than a JWT). */
export function looksPersonal(value: string): boolean {
  return value.startsWith(TOKEN_PREFIX)
}

/**
 * The id of a well-formed token whose checksum is right, or null. Costs a regular expression and
 * a CRC: a random or mistyped string is refused without touching the database.
 */
export function parseToken(value: unknown): { id: string } | null {
  if (typeof value !== 'string' || value.length > 80) return null
  const match = TOKEN_PATTERN.exec(value)
  if (!match) return null
  const body = value.slice(0, value.length - CHECKSUM_LENGTH)
  if (checksumOf(body) !== match[3]) return null
  return { id: match[1]! }
}
