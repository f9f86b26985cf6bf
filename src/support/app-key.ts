/**
 * @module support/app-key
 * How APP_KEY is read into bytes, for every key derived from it (cookies, encrypted columns).
 */

/** Decodes an APP_KEY: `base64:...` is base64, anything else its UTF-8 bytes. */
export function decodeAppKey(key: string): Buffer {
  return key.startsWith('base64:') ? Buffer.from(key.slice(7), 'base64') : Buffer.from(key, 'utf8')
}
