/**
 * @module client/storage
 * Where the client keeps its token: `{ get, set, remove }`, synchronous or not (React Native's
 * AsyncStorage returns promises). In memory by default: nothing outlives the page, and nothing is
 * readable by other scripts. `webStorage(localStorage)` keeps the login across reloads and lets
 * tabs share it, at a price: any script running on the page (an XSS) can read the token.
 */

/**
 * Keyed like localStorage. A storage that holds only the token may ignore the key: a `set` declared
 * with one parameter (`set(token) {...}`) is called with the token alone.
 */
export interface TokenStorage {
  get(key: string): string | null | undefined | Promise<string | null | undefined>
  set(key: string, value: string): void | Promise<void>
  remove(key: string): void | Promise<void>
}

/** The token's slot in a storage, under `key`. */
export interface TokenSlot {
  read(): Promise<string | null>
  write(token: string): Promise<void>
  clear(): Promise<void>
}

export function tokenSlot(storage: TokenStorage | { get(): unknown; set(value: string): unknown; remove(): unknown }, key: string): TokenSlot {
  const keyed = storage as TokenStorage
  const single = storage.set.length === 1
  return {
    async read() {
      const value = await keyed.get(key)
      return typeof value === 'string' && value !== '' ? value : null
    },
    async write(token) {
      await (single ? (storage.set as (value: string) => unknown)(token) : keyed.set(key, token))
    },
    async clear() {
      await keyed.remove(key)
    },
  }
}

/** The default: a Map private to one client (one tab). */
export function memoryStorage(): TokenStorage {
  const values = new Map<string, string>()
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => void values.set(key, value),
    remove: (key) => void values.delete(key),
  }
}

/** The shape of `window.localStorage` / `sessionStorage`. */
export interface WebStorageLike {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

/**
 * `localStorage` (shared by the site's tabs, kept across restarts) or `sessionStorage` (one tab).
 * Readable by any script on the page: see docs/spa-and-mobile.md before choosing it.
 */
export function webStorage(store: WebStorageLike): TokenStorage {
  return {
    get: (key) => store.getItem(key),
    set: (key, value) => store.setItem(key, value),
    remove: (key) => store.removeItem(key),
  }
}
