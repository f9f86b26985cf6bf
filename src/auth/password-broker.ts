/**
 * @module auth/password-broker
 * Password resets. A reset token is 32 random bytes (base64url) sent only in the e-mailed link
 * `<APP_URL>/change_password/<token>`; the table stores its SHA-256. One row per user (a new
 * request replaces the old), expiring after `password_reset_expiration` minutes (fractions
 * allowed, null = never), single use: consuming it, changing the password and revoking every
 * login of that user happen in one transaction, and only the request that deletes the row wins.
 */
import type { Knex } from 'knex'
import { randomToken, sha256Hex } from './tokens/index.js'

export interface PasswordBrokerOptions {
  db: () => Knex
  model: any
  table: string
  /** Minutes; null = never expires. */
  expiration: number | null
  appUrl: string
  hash: (password: string) => Promise<string>
  revokeAllLogins: (userId: unknown, trx: Knex.Transaction) => Promise<void>
  send: (user: any, url: string, expiresInMinutes: number | null) => Promise<void>
  onSendError: (error: unknown, user: any) => void
}

export class PasswordBroker {
  readonly #o: PasswordBrokerOptions

  constructor(options: PasswordBrokerOptions) {
    this.#o = options
  }

  /**
   * Starts a reset. Answers the same whether or not the address exists; the mail goes out in the
   * background, so a slow or failing mail server changes neither the answer nor its timing.
   * Returns the token (for tests and custom flows), or null when no user has that address.
   */
  async sendResetLink(email: unknown): Promise<string | null> {
    const user = await this.#o.model.findForAuth(email)
    const token = randomToken(32)
    const column = this.#o.model.authColumn ?? 'email'
    // An unknown address runs the same transaction (its delete matches nothing), so the answer
    // takes about as long either way: its timing does not tell whether the address exists.
    const address = user ? user[column] : typeof email === 'string' ? email.trim().slice(0, 320).replaceAll('\u0000', '') : ''
    const expiresAt = this.#o.expiration === null ? null : new Date(Date.now() + Math.round(this.#o.expiration * 60_000))
    await this.#o.db().transaction(async (trx) => {
      await trx(this.#o.table).where('email', address).delete()
      if (user) await trx(this.#o.table).insert({ email: address, token: sha256Hex(token), expires_at: expiresAt, created_at: new Date() })
    })
    if (!user) return null
    const url = `${this.#o.appUrl.replace(/\/+$/, '')}/change_password/${token}`
    this.#o.send(user, url, this.#o.expiration).catch((error) => this.#o.onSendError(error, user))
    return token
  }

  /** The user a valid, unexpired token belongs to, or null; consumes nothing. */
  async userForToken(token: unknown): Promise<any | null> {
    const row = await this.#row(token)
    return row ? this.#o.model.findForAuth(row.email) : null
  }

  /** Changes the password if the token is valid; returns the user, or null. */
  async reset(token: unknown, password: string): Promise<any | null> {
    const row = await this.#row(token)
    if (!row) return null
    const user = await this.#o.model.findForAuth(row.email)
    if (!user) return null
    const hashed = await this.#o.hash(password)
    const passwordColumn = this.#o.model.passwordColumn ?? 'password'
    const changed = await this.#o.db().transaction(async (trx) => {
      const deleted = await trx(this.#o.table).where('token', row.token).delete()
      if (deleted !== 1) return null
      const changes: Record<string, unknown> = { [passwordColumn]: hashed, updated_at: new Date() }
      // The API token (AuthenticatesTokens) dies with the reset too: a stolen JWT can no longer be
      // reauthed, and is refused at once where `authenticates` is true.
      const tokenColumn = (this.#o.model as { tokenColumn?: unknown }).tokenColumn
      if (typeof tokenColumn === 'string') changes[tokenColumn] = null
      await trx(this.#o.model.getTable()).where(this.#o.model.getPrimaryKey(), user.getKey()).update(changes)
      await this.#o.revokeAllLogins(user.getKey(), trx)
      return changes
    })
    if (!changed) return null
    user.forceFill(changed)
    return user
  }

  async #row(token: unknown): Promise<{ email: string; token: string } | null> {
    if (typeof token !== 'string' || token.length < 20 || token.length > 200) return null
    const row = await this.#o.db()(this.#o.table).where('token', sha256Hex(token)).first()
    if (!row) return null
    if (row.expires_at !== null && row.expires_at !== undefined) {
      const expires = new Date(row.expires_at).getTime()
      if (!Number.isFinite(expires) || expires <= Date.now()) {
        await this.#o.db()(this.#o.table).where('token', row.token).delete()
        return null
      }
    }
    return row
  }
}
