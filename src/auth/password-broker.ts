/**
 * @module auth/password-broker
 * Password resets. A reset token is 32 random bytes (base64url) sent only in the e-mailed link
 * `<APP_URL>/change_password/<token>`; the table stores its SHA-256. One row per user (a new
 * request replaces the old), expiring after `password_reset_expiration` minutes (fractions
 * allowed, null = never), single use: consuming it, changing the password and revoking every
 * login of that user happen in one transaction, and only the request that deletes the row wins.
 * `request()` can be given a one-slot budget so that an address gets at most one e-mail per
 * window; `isUsable()` tells the change-password page whether a token is still live.
 */
import type { Knex } from 'knex'
import { randomToken, sha256Hex } from './tokens/index.js'
import { normalizeEmail } from './email.js'
import type { Budget } from './throttle/budget.js'

export interface PasswordBrokerOptions {
  db: () => Knex
  model: any
  table: string
  /** Minutes; null = never expires. */
  expiration: number | null
  appUrl: string
  hash: (password: string) => Promise<string>
  revokeAllLogins: (userId: unknown, trx: Knex.Transaction) => Promise<void>
  /** Also run in the reset's transaction, after the password is set (lifts the "This wasn't me" lock). */
  onReset?: (userId: unknown, trx: Knex.Transaction) => Promise<void>
  send: (user: any, url: string, expiresInMinutes: number | null) => Promise<void>
  onSendError: (error: unknown, user: any) => void
}

export interface ResetRequestOptions {
  /**
   * At most one e-mail per address per window: a slot of this budget is taken, keyed by the
   * account's normalised address, before the token is written. When none is left the request
   * changes nothing and sends nothing (`token` is null). Budget.take throws 503 when its store
   * is unreachable (fails closed: no mail).
   */
  mailBudget?: Budget | null
}

/** What `request()` did: the account's user, and its new token (null: held back by `mailBudget`). */
export interface ResetRequested {
  user: any
  token: string | null
}

export class PasswordBroker {
  readonly #o: PasswordBrokerOptions

  constructor(options: PasswordBrokerOptions) {
    this.#o = options
  }

  /**
   * Does the work of a reset request: the look-up, the token write and the e-mail (sent in the
   * background, so a slow or failing mail server never holds this up). Returns the user and the
   * token (for tests and custom flows), or null when no user has that address. It awaits the
   * look-up and the write: `auth.passwordReset()` runs it after the response has been sent, so
   * that no answer's timing depends on the address.
   */
  async request(email: unknown, options: ResetRequestOptions = {}): Promise<ResetRequested | null> {
    const user = await this.#o.model.findForAuth(email)
    const column = this.#o.model.authColumn ?? 'email'
    const budget = user ? options.mailBudget : null
    const mailKey = budget ? budget.key(normalizeEmail(user[column])) : ''
    if (budget && (await budget.take(mailKey)) !== null) return { user, token: null }
    try {
      return await this.#issue(user, email, column)
    } catch (error) {
      // Nothing was sent: give the slot back so that the next request can try again.
      if (budget) await budget.clear(mailKey).catch(() => undefined)
      throw error
    }
  }

  async #issue(user: any, email: unknown, column: string): Promise<ResetRequested | null> {
    // An unknown address runs the same transaction (its delete matches nothing), so even a caller
    // that awaits request() cannot tell from its duration whether the address exists.
    const address = user ? user[column] : typeof email === 'string' ? email.trim().slice(0, 320).replaceAll('\u0000', '') : ''
    let send: (() => void) | null = null
    let token = ''
    await this.#o.db().transaction(async (trx) => {
      const issued = await this.#write(trx, user, address, user ? user[column] : '')
      token = issued.token
      send = issued.send
    })
    if (!user) return null
    send!()
    return { user, token }
  }

  /**
   * A reset link for `user` written in the caller's transaction `trx`, mailed to `to` (the
   * account's address unless given) by the returned `send()`, to call once `trx` has committed.
   * The row is keyed by the account's current address (that is how `reset()` finds the account),
   * whatever address the mail goes to: "This wasn't me" mails it to the address the notice went to.
   */
  async issueFor(user: any, trx: Knex.Transaction, options: { to?: string } = {}): Promise<{ token: string; send: () => void }> {
    const column = this.#o.model.authColumn ?? 'email'
    return this.#write(trx, user, user[column], options.to ?? user[column])
  }

  async #write(trx: Knex.Transaction, user: any, address: string, to: string): Promise<{ token: string; send: () => void }> {
    const token = randomToken(32)
    const expiresAt = this.#o.expiration === null ? null : new Date(Date.now() + Math.round(this.#o.expiration * 60_000))
    await trx(this.#o.table).where('email', address).delete()
    if (user) await trx(this.#o.table).insert({ email: address, token: sha256Hex(token), expires_at: expiresAt, created_at: new Date() })
    const url = `${this.#o.appUrl.replace(/\/+$/, '')}/change_password/${token}`
    const column = this.#o.model.authColumn ?? 'email'
    // The mail names the address it goes to; the account itself is not changed.
    const recipient = user && to !== user[column] ? mailUser(user, column, to) : user
    const send = () => {
      if (!user) return
      this.#o.send(recipient, url, this.#o.expiration).catch((error) => this.#o.onSendError(error, user))
    }
    return { token, send }
  }

  /** `request()`, answering only the token (or null). */
  async sendResetLink(email: unknown): Promise<string | null> {
    return (await this.request(email))?.token ?? null
  }

  /**
   * True when `token` would be accepted by `reset()` now (a live, unexpired row), without
   * consuming or deleting anything: the change-password page asks before the user types.
   */
  async isUsable(token: unknown): Promise<boolean> {
    return (await this.#find(token)) !== null
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
      await this.#o.onReset?.(user.getKey(), trx)
      return changes
    })
    if (!changed) return null
    user.forceFill(changed)
    return user
  }

  /** The live row of `token`; an expired one is deleted on the way. */
  async #row(token: unknown): Promise<{ email: string; token: string } | null> {
    const row = await this.#lookup(token)
    if (row && !isLive(row)) {
      await this.#o.db()(this.#o.table).where('token', row.token).delete()
      return null
    }
    return row
  }

  /** The live row of `token`, read only. */
  async #find(token: unknown): Promise<{ email: string; token: string } | null> {
    const row = await this.#lookup(token)
    return row && isLive(row) ? row : null
  }

  async #lookup(token: unknown): Promise<{ email: string; token: string; expires_at?: unknown } | null> {
    if (typeof token !== 'string' || token.length < 20 || token.length > 200) return null
    return (await this.#o.db()(this.#o.table).where('token', sha256Hex(token)).first()) ?? null
  }
}

function isLive(row: { expires_at?: unknown }): boolean {
  if (row.expires_at === null || row.expires_at === undefined) return true
  const expires = new Date(row.expires_at as string | number | Date).getTime()
  return Number.isFinite(expires) && expires > Date.now()
}

/** The user as a reset mail sees it, with `to` as its address (the mailable reads `user.email`). */
function mailUser(user: any, column: string, to: string): any {
  return { name: user.name, [column]: to, email: to, getKey: () => user.getKey() }
}
