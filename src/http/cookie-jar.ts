/**
 * @module http/cookie-jar
 * Signs (HMAC-SHA256) or encrypts (AES-256-GCM) cookie values with keys derived from APP_KEY.
 * The cookie's name is bound into the MAC, so a value cannot be moved to another cookie.
 * Previous keys (APP_PREVIOUS_KEYS) still verify, so a key can be rotated without logging
 * everybody out; new values are always written with the current key.
 *
 * A browser sends the same cookies with every request, so the jar keeps the values it has
 * verified or decrypted (the last 1,000 by default: `openedCacheSize`, 0 for none), by their
 * exact text: a cookie seen again is answered without another HMAC or AES-GCM. Only values that
 * passed are kept, each with the name it passed under (the MAC and the AES-GCM data are bound to
 * the name, so the same text is never valid under another); what the cookie says is checked by
 * its reader on every request as before (a session's idle and absolute lifetimes, a login's
 * token). Oldest out first; a new jar (a new key, a restart) starts empty.
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

export interface CookieJarOptions {
  /** How many verified or decrypted values are kept for cookies sent again (default 1,000; 0: none). */
  openedCacheSize?: number
}

/** A value that passed, kept by its packed text with the cookie name it passed under. */
interface Opened {
  name: string
  value: string
}

export class CookieJar {
  #current: DerivedKeys
  #all: DerivedKeys[]
  readonly #opened: Map<string, Opened> | null
  readonly #openedMax: number

  constructor(appKey: string, previousKeys: string[] = [], options: CookieJarOptions = {}) {
    this.#current = derive(decodeAppKey(appKey))
    this.#all = [this.#current, ...previousKeys.filter(Boolean).map((k) => derive(decodeAppKey(k)))]
    this.#openedMax = Math.max(0, Math.floor(options.openedCacheSize ?? 1000))
    this.#opened = this.#openedMax > 0 ? new Map() : null
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
    const opened = this.#opened
    if (opened === null) return this.#open(name, packed)
    const kept = opened.get(packed)
    if (kept !== undefined && kept.name === name) return kept.value
    const value = this.#open(name, packed)
    if (value !== undefined && kept === undefined) {
      if (opened.size >= this.#openedMax) opened.delete(opened.keys().next().value!)
      // The key is copied: the text given is usually a slice of the request's whole Cookie
      // header (up to 16 KB), which a kept slice would keep alive with it.
      opened.set(Buffer.from(packed, 'utf16le').toString('utf16le'), { name, value })
    }
    return value
  }

  /** Whether `packed` is among the values kept for cookies sent again (tests, diagnostics). */
  isKept(packed: string): boolean {
    return this.#opened?.has(packed) ?? false
  }

  #open(name: string, packed: string): string | undefined {
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
