/**
 * @module http/cookie-jar
 * Signs (HMAC-SHA256) or encrypts (AES-256-GCM) cookie values with keys derived from APP_KEY.
 * The cookie's name is bound into the MAC, so a value cannot be moved to another cookie.
 * Previous keys (APP_PREVIOUS_KEYS) still verify, so a key can be rotated without logging
 * everybody out; new values are always written with the current key.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'
import { decodeAppKey } from '../support/app-key.js'

export type CookieMode = 'signed' | 'encrypted'

interface DerivedKeys {
  sign: Buffer
  encrypt: Buffer
}

function derive(secret: Buffer): DerivedKeys {
  return {
    sign: Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'trowel cookie signing', 32)),
    encrypt: Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'trowel cookie encryption', 32)),
  }
}

export { decodeAppKey }

export class CookieJar {
  #current: DerivedKeys
  #all: DerivedKeys[]

  constructor(appKey: string, previousKeys: string[] = []) {
    this.#current = derive(decodeAppKey(appKey))
    this.#all = [this.#current, ...previousKeys.filter(Boolean).map((k) => derive(decodeAppKey(k)))]
  }

  pack(name: string, value: string, mode: CookieMode = 'signed'): string {
    if (mode === 'encrypted') {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', this.#current.encrypt, iv)
      cipher.setAAD(Buffer.from(name, 'utf8'))
      const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()])
      return 'e.' + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')
    }
    const payload = Buffer.from(value, 'utf8').toString('base64url')
    return 's.' + payload + '.' + mac(this.#current.sign, name, payload)
  }

  /** The original value, or undefined when the cookie is unsigned, tampered or foreign. */
  unpack(name: string, packed: string): string | undefined {
    if (packed.startsWith('s.')) {
      const dot = packed.lastIndexOf('.')
      if (dot <= 2) return undefined
      const payload = packed.slice(2, dot)
      // Compared as text: another spelling of the same MAC bytes (base64url's spare bits in its
      // last character) is a changed cookie too.
      const given = Buffer.from(packed.slice(dot + 1), 'utf8')
      for (const keys of this.#all) {
        const expected = Buffer.from(mac(keys.sign, name, payload), 'utf8')
        if (given.length === expected.length && timingSafeEqual(given, expected)) {
          return Buffer.from(payload, 'base64url').toString('utf8')
        }
      }
      return undefined
    }
    if (packed.startsWith('e.')) {
      const text = packed.slice(2)
      const raw = Buffer.from(text, 'base64url')
      // Only the canonical spelling: no other text decodes to the same bytes and is accepted.
      if (raw.length < 12 + 16 || raw.toString('base64url') !== text) return undefined
      for (const keys of this.#all) {
        try {
          const decipher = createDecipheriv('aes-256-gcm', keys.encrypt, raw.subarray(0, 12))
          decipher.setAAD(Buffer.from(name, 'utf8'))
          decipher.setAuthTag(raw.subarray(raw.length - 16))
          return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8')
        } catch {
          // try the next key
        }
      }
    }
    return undefined
  }
}

function mac(key: Buffer, name: string, payload: string): string {
  return createHmac('sha256', key).update(name).update('=').update(payload).digest('base64url')
}
