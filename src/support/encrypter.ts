/**
 * @module support/encrypter
 * Encrypts values kept at rest (a TOTP secret in a users column) with AES-256-GCM under
 * a key derived by HKDF-SHA256 from APP_KEY, with an info string of its own, so it never equals a
 * key the cookies use. Each value is bound to its place by the additional authenticated data
 * (e.g. `users.totp_secret:42`): a ciphertext copied to another row or column does not
 * decrypt. Keys in APP_PREVIOUS_KEYS still decrypt, and `decrypt()` says when one of them was
 * needed, so the caller can write the value again under the current key (`encrypt()` always
 * uses it).
 *
 * Format: `v1.` then base64url (no padding) of the 12-byte IV, the ciphertext and the 16-byte tag.
 *
 * @example
 * const encrypter = app.make('encrypter')
 * const stored = encrypter.encrypt('JBSWY3DPEHPK3PXP', 'users.totp_secret:42')
 * encrypter.decrypt(stored, 'users.totp_secret:42') // { value: 'JBSWY3DPEHPK3PXP', rotated: false }
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { decodeAppKey } from './app-key.js'

const VERSION = 'v1.'
const INFO = 'trowel encrypter v1'
const IV_BYTES = 12
const TAG_BYTES = 16

export interface Decrypted {
  value: string
  /** True when a previous key (APP_PREVIOUS_KEYS) decrypted it: store it again with `encrypt()`. */
  rotated: boolean
}

function derive(secret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), INFO, 32))
}

export class Encrypter {
  readonly #keys: Buffer[]

  /** `appKey` as APP_KEY is written (`base64:...` or text); `previousKeys` only decrypt. */
  constructor(appKey: string, previousKeys: string[] = []) {
    this.#keys = [appKey, ...previousKeys.filter(Boolean)].map((key) => derive(decodeAppKey(key)))
  }

  /** `value` encrypted with the current key and bound to `context` (where it is stored). */
  encrypt(value: string, context: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#keys[0]!, iv)
    cipher.setAAD(Buffer.from(context, 'utf8'))
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()])
    return VERSION + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')
  }

  /**
   * The plaintext of a value `encrypt()` made for the same `context`, or undefined when it is not
   * one (another format, altered, another context, or a key this app no longer has).
   */
  decrypt(stored: unknown, context: string): Decrypted | undefined {
    if (typeof stored !== 'string' || !stored.startsWith(VERSION)) return undefined
    const text = stored.slice(VERSION.length)
    const raw = Buffer.from(text, 'base64url')
    // Only the canonical spelling: no other text decodes to the same bytes and is accepted.
    if (raw.length < IV_BYTES + TAG_BYTES || raw.toString('base64url') !== text) return undefined
    for (const [index, key] of this.#keys.entries()) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES))
        decipher.setAAD(Buffer.from(context, 'utf8'))
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
        const value = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8')
        return { value, rotated: index > 0 }
      } catch {
        // try the next key
      }
    }
    return undefined
  }
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    /** Encrypts values at rest with APP_KEY (previous keys still decrypt). */
    encrypter: Encrypter
  }
}
