/**
 * @module session/session
 * One visitor's session for one request: values (`put`/`get`), flash data that lives for exactly
 * the next request (`flash`/`getFlash`, old input, validation errors), the CSRF token, and id
 * rotation (`regenerate`, `invalidate`). The session middleware loads it, sets `ctx.session`, and
 * saves it after the handler when something changed.
 */
import { randomToken } from '../support/random-token.js'
import type { SessionData } from './session-store.js'
import { bag } from '../support/bag.js'

const OLD_INPUT_KEY = '_old_input'
const ERRORS_KEY = '_errors'

export { randomToken }

export class Session {
  /** `null` until first read for a new session: most first visits never store one. */
  #id: string | null
  #values: Record<string, unknown>
  /** Flash data written by the previous request: what this request reads. */
  #incomingFlash: Record<string, unknown>
  /** Flash data written during this request: what the next request reads. */
  #outgoingFlash: Record<string, unknown> = bag()
  #csrfToken: string | null
  #createdAt: number
  #lastActivity: number
  #dirty = false
  #isNew: boolean
  /** Ids this session had earlier in the request (before regenerate/invalidate); destroyed on save. */
  #retiredIds: string[] = []

  /**
   * A fresh session, or one restored from its stored data. A fresh session may pass `null`: its
   * random id is then made when first read (a visit that stores nothing costs no randomness).
   */
  constructor(id: string | null, data: SessionData | null = null, now = Date.now()) {
    this.#id = id
    this.#isNew = data === null
    this.#values = bag(data?.values)
    this.#incomingFlash = bag(data?.flash)
    this.#csrfToken = data?.csrfToken ?? null
    this.#createdAt = data?.createdAt ?? now
    this.#lastActivity = data?.lastActivity ?? now
  }

  get id(): string {
    return (this.#id ??= randomToken())
  }

  /** True when values, flash data, the token or the id changed during this request. */
  get isDirty(): boolean {
    return this.#dirty
  }

  /** True when this session was not loaded from the store (first visit, or expired/unknown id). */
  get isNew(): boolean {
    return this.#isNew
  }

  /** True when the previous request left flash data (it must be dropped on save). */
  get hasIncomingFlash(): boolean {
    for (const _ in this.#incomingFlash) return true
    return false
  }

  /** Ids this session has left behind during this request; the middleware destroys them. */
  get retiredIds(): readonly string[] {
    return this.#retiredIds
  }

  get createdAt(): number {
    return this.#createdAt
  }

  get lastActivity(): number {
    return this.#lastActivity
  }

  get<T = unknown>(key: string, fallback?: T): T {
    return (Object.hasOwn(this.#values, key) ? this.#values[key] : fallback) as T
  }

  put(key: string, value: unknown): this {
    this.#values[key] = value
    this.#dirty = true
    return this
  }

  has(key: string): boolean {
    return Object.hasOwn(this.#values, key) && this.#values[key] !== undefined && this.#values[key] !== null
  }

  forget(key: string): this {
    if (Object.hasOwn(this.#values, key)) {
      delete this.#values[key]
      this.#dirty = true
    }
    return this
  }

  /** A copy of every value put in the session. */
  all(): Record<string, unknown> {
    return { ...this.#values }
  }

  /** Stores `value` for exactly the next request (read there with `getFlash`). */
  flash(key: string, value: unknown): this {
    this.#outgoingFlash[key] = value
    this.#dirty = true
    return this
  }

  /** Keeps the flash data this request received for one more request. */
  reflash(): this {
    for (const [key, value] of Object.entries(this.#incomingFlash)) {
      if (!Object.hasOwn(this.#outgoingFlash, key)) this.#outgoingFlash[key] = value
    }
    this.#dirty = true
    return this
  }

  /** A value the previous request flashed, or `fallback`. */
  getFlash<T = unknown>(key: string, fallback?: T): T {
    return (Object.hasOwn(this.#incomingFlash, key) ? this.#incomingFlash[key] : fallback) as T
  }

  /**
   * Flashes the submitted input for the next request (`old()`), dropping every key that contains
   * `password` (any case) and the CSRF fields `_token`/`__token`. Only strings, numbers, booleans
   * and arrays of strings are kept.
   */
  flashInput(input: Record<string, unknown>): this {
    const kept: Record<string, unknown> = bag()
    for (const [key, value] of Object.entries(input ?? {})) {
      if (/password/i.test(key) || key === '_token' || key === '__token') continue
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') kept[key] = value
      else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) kept[key] = [...value]
    }
    return this.flash(OLD_INPUT_KEY, kept)
  }

  /** A field of the input the previous request flashed, or `fallback`. */
  old<T = unknown>(key: string, fallback?: T): T {
    const input = this.#incomingFlash[OLD_INPUT_KEY]
    if (input && typeof input === 'object' && Object.hasOwn(input, key)) return (input as Record<string, T>)[key]!
    return fallback as T
  }

  /** Flashes validation errors (field → messages) for the next request (`errors()`). */
  flashErrors(errors: Record<string, string[]>): this {
    return this.flash(ERRORS_KEY, errors)
  }

  /** The errors the previous request flashed; `{}` when none. */
  errors(): Record<string, string[]> {
    const errors = this.#incomingFlash[ERRORS_KEY]
    return errors && typeof errors === 'object' ? { ...(errors as Record<string, string[]>) } : {}
  }

  /** The CSRF token (32 random bytes, base64url), created on first use. */
  token(): string {
    if (this.#csrfToken === null) {
      this.#csrfToken = randomToken()
      this.#dirty = true
    }
    return this.#csrfToken
  }

  /** The CSRF token if one exists, without creating one. */
  currentToken(): string | null {
    return this.#csrfToken
  }

  /** Replaces the CSRF token (the old one stops being accepted). */
  regenerateToken(): this {
    this.#csrfToken = randomToken()
    this.#dirty = true
    return this
  }

  /**
   * Moves the session to a new random id and a new CSRF token, keeping its data; the old id is
   * destroyed in the store when the session is saved. Call it on login (session fixation).
   */
  regenerate(): this {
    this.#retire()
    this.#csrfToken = randomToken()
    return this
  }

  /** Clears all data (values, flash, token) and moves to a new id; the old id is destroyed on save. */
  invalidate(): this {
    this.#retire()
    this.#values = bag()
    this.#incomingFlash = bag()
    this.#outgoingFlash = bag()
    this.#csrfToken = null
    this.#createdAt = Date.now()
    return this
  }

  #retire(): void {
    if (!this.#isNew && this.#id !== null) this.#retiredIds.push(this.#id)
    this.#id = randomToken()
    this.#isNew = true
    this.#dirty = true
  }

  /** What gets stored: this request's values and the flash data for the next request. */
  toData(now = Date.now()): SessionData {
    this.#lastActivity = now
    return {
      values: { ...this.#values },
      flash: { ...this.#outgoingFlash },
      csrfToken: this.#csrfToken,
      createdAt: this.#createdAt,
      lastActivity: now,
    }
  }

  /**
   * Takes back what this request flashed under `keys` for the next one (a JSON answer carries its
   * message and errors itself, so nothing is left for a page that will never be shown).
   */
  takeFlashed(keys: readonly string[]): Record<string, unknown> {
    const taken: Record<string, unknown> = {}
    for (const key of keys) {
      if (!Object.hasOwn(this.#outgoingFlash, key)) continue
      taken[key] = this.#outgoingFlash[key]
      delete this.#outgoingFlash[key]
      this.#dirty = true
    }
    return taken
  }

  /** Drops the flashed old input (used when a cookie-stored session grows too large). */
  dropOldInput(): boolean {
    if (!Object.hasOwn(this.#outgoingFlash, OLD_INPUT_KEY)) return false
    delete this.#outgoingFlash[OLD_INPUT_KEY]
    return true
  }
}
