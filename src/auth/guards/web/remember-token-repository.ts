/**
 * @module auth/guards/web/remember-token-repository
 * "Remember me": the server side of the `trowel_remember` cookie, one row per device in
 * `remember_tokens`. The cookie holds `<series>.<token>`, both random (32 bytes, base64url); the
 * row holds only their SHA-256 (`series_hash`, `token_hash`). The series names the device and
 * never changes; the token is replaced on every use (`rotate`), the replaced one kept as
 * `previous_hash` with the time of the rotation.
 *
 * A presented cookie is one of (`find`):
 * - `current`: the series' current token, not expired. The caller rotates it.
 * - `grace`: the replaced token, less than `reuseWindowSeconds` (`GUARDS.web.remember_reuse_window`,
 *   default 10) after it was replaced: the tabs of one browser restoring at once all send the old
 *   cookie, and a browser whose answer carrying the new one was lost sends it again. It restores
 *   the login its successor holds (`login_token_hash`), for that request, without a new login.
 * - `theft`: the series is known but the token is neither, or is the replaced one presented after
 *   the window: whoever sends it saw the token long after it was replaced, so someone else holds
 *   (or held) this device's cookie. The caller ends the series and the web login it holds
 *   (`endDevice`).
 *
 * `rotated_at` is epoch milliseconds (a whole number), so the comparison with a request's arrival
 * is exact on every database (MySQL's DATETIME would round it to the second).
 * - `expired`: past `expires_at`; `unknown`: no such series (or not a cookie of ours).
 *
 * `login_token_hash` is the `login_tokens.token_hash` of the web login the series holds now, so
 * ending the series ends that login too.
 */
import type { Knex } from 'knex'
import { randomToken, sha256Hex, timingSafeEqualString } from '../../tokens/index.js'
import { epochMs } from './login-token-repository.js'

export interface RememberTokenOptions {
  /** Minutes a remember-me cookie lasts from its last use (`GUARDS.web.remember_lifetime`). */
  lifetime: number
  /** The table (default `remember_tokens`). */
  table?: string
  /** The web logins' table (default `login_tokens`). */
  loginTable?: string
  /** Seconds a replaced token still restores its successor's login (default 10). */
  reuseWindowSeconds?: number
}

/** A `remember_tokens` row as read. */
export interface RememberRow {
  id: number
  user_id: unknown
  series_hash: string
  token_hash: string
  previous_hash: string | null
  rotated_at: unknown
  login_token_hash: string | null
  created_at: unknown
  expires_at: unknown
}

export type RememberState = 'current' | 'grace' | 'theft' | 'expired' | 'unknown'

export type RememberLookup =
  | { state: 'unknown' }
  | { state: Exclude<RememberState, 'unknown'>; row: RememberRow; series: string; token: string }

/** Both halves of the cookie: base64url of 32 random bytes (43 characters); some slack either way. */
const PART = /^[A-Za-z0-9_-]{20,100}$/

/** `<series>.<token>` of a cookie value, or null when it is not one. */
export function parseRememberCookie(value: unknown): { series: string; token: string } | null {
  if (typeof value !== 'string') return null
  const dot = value.indexOf('.')
  if (dot < 0) return null
  const series = value.slice(0, dot)
  const token = value.slice(dot + 1)
  return PART.test(series) && PART.test(token) ? { series, token } : null
}

export class RememberTokenRepository {
  readonly #db: () => Knex
  readonly table: string
  readonly loginTable: string
  /** Minutes. */
  readonly lifetime: number
  reuseWindowSeconds: number

  constructor(db: () => Knex, options: RememberTokenOptions) {
    this.#db = db
    this.table = options.table ?? 'remember_tokens'
    this.loginTable = options.loginTable ?? 'login_tokens'
    this.lifetime = options.lifetime
    this.reuseWindowSeconds = options.reuseWindowSeconds ?? 10
  }

  /** The cookie's Max-Age: the lifetime in whole seconds. */
  get maxAgeSeconds(): number {
    return Math.max(1, Math.round(this.lifetime * 60))
  }

  #expiresAt(now: number): Date {
    return new Date(now + this.lifetime * 60_000)
  }

  /** Starts a series for `userId` holding the web login `loginTokenHash`; returns the cookie value. */
  async create(userId: unknown, loginTokenHash: string | null, now = Date.now()): Promise<string> {
    const series = randomToken(32)
    const token = randomToken(32)
    await this.#db()(this.table).insert({
      user_id: userId,
      series_hash: sha256Hex(series),
      token_hash: sha256Hex(token),
      previous_hash: null,
      rotated_at: null,
      login_token_hash: loginTokenHash,
      created_at: new Date(now),
      expires_at: this.#expiresAt(now),
    })
    return `${series}.${token}`
  }

  /** What a presented cookie value is (see the module comment). Reads one row by its unique series; writes nothing. */
  async find(cookie: unknown, now = Date.now()): Promise<RememberLookup> {
    const parts = parseRememberCookie(cookie)
    if (!parts) return { state: 'unknown' }
    const row = (await this.#db()(this.table).where('series_hash', sha256Hex(parts.series)).first()) as RememberRow | undefined
    if (!row) return { state: 'unknown' }
    const found = { row, ...parts }
    const expires = epochMs(row.expires_at)
    if (expires === null || expires <= now) return { state: 'expired', ...found }
    const digest = sha256Hex(parts.token)
    if (timingSafeEqualString(digest, row.token_hash)) return { state: 'current', ...found }
    if (row.previous_hash && timingSafeEqualString(digest, row.previous_hash)) {
      const rotated = row.rotated_at === null || row.rotated_at === undefined ? null : Number(row.rotated_at)
      if (rotated !== null && Number.isFinite(rotated) && now - rotated < this.reuseWindowSeconds * 1000) return { state: 'grace', ...found }
    }
    return { state: 'theft', ...found }
  }

  /**
   * Replaces the current token of a `current` look-up, atomically: the row changes only while it
   * still holds the presented token, so of any number of requests presenting it at once exactly
   * one wins. The winner gets the new cookie value (and the series now holds `loginTokenHash`,
   * its expiry moved to a full lifetime from now); a loser gets null.
   */
  async rotate(found: { row: RememberRow; series: string }, loginTokenHash: string | null, now = Date.now()): Promise<string | null> {
    const token = randomToken(32)
    const changed = await this.#db()(this.table)
      .where({ id: found.row.id, token_hash: found.row.token_hash })
      .update({
        token_hash: sha256Hex(token),
        previous_hash: found.row.token_hash,
        rotated_at: now,
        login_token_hash: loginTokenHash,
        expires_at: this.#expiresAt(now),
      })
    return Number(changed) === 1 ? `${found.series}.${token}` : null
  }

  /** Whether the web login of `loginTokenHash` still exists (the one a `grace` look-up restores). */
  async loginExists(loginTokenHash: string | null): Promise<boolean> {
    if (!loginTokenHash) return false
    return (await this.#db()(this.loginTable).where('token_hash', loginTokenHash).first('token_hash')) !== undefined
  }

  /**
   * Replaces the series a `current` or `grace` look-up names by a new one (new series, new token,
   * no replaced token kept) holding `loginTokenHash`, in place, so whatever else the row records
   * stays (its expiry too: a rotation is not a use). The old cookie then names no series at all: it restores nothing and is not theft.
   * Returns the new cookie value, or null when the row changed meanwhile (another request won).
   */
  async replaceSeries(found: { row: RememberRow }, loginTokenHash: string | null): Promise<string | null> {
    const series = randomToken(32)
    const token = randomToken(32)
    const changed = await this.#db()(this.table)
      .where({ id: found.row.id, series_hash: found.row.series_hash })
      .update({
        series_hash: sha256Hex(series),
        token_hash: sha256Hex(token),
        previous_hash: null,
        rotated_at: null,
        login_token_hash: loginTokenHash,
      })
    return Number(changed) === 1 ? `${series}.${token}` : null
  }

  /** Ends a series and the web login it holds (theft, expiry, or its user is gone). */
  async endDevice(row: Pick<RememberRow, 'id' | 'login_token_hash'>): Promise<void> {
    await this.#db()(this.table).where('id', row.id).delete()
    if (row.login_token_hash) await this.endLogin(row.login_token_hash)
  }

  /** Deletes one web login by its token hash (the login a series held before a rotation). */
  async endLogin(loginTokenHash: string): Promise<void> {
    await this.#db()(this.loginTable).where('token_hash', loginTokenHash).delete()
  }

  /** Ends the series a cookie names (logout, or a new login on this device); its web login is the caller's business. */
  async forget(cookie: unknown): Promise<void> {
    const parts = parseRememberCookie(cookie)
    if (!parts) return
    await this.#db()(this.table).where('series_hash', sha256Hex(parts.series)).delete()
  }
}
