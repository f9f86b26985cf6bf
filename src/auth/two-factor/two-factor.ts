/**
 * @module auth/two-factor/two-factor
 * A user's TOTP second factor (`app.make('auth.two_factor')`): the secret on the user's row
 * (`two_factor_secret`, encrypted with APP_KEY and bound to that row), whether it is confirmed
 * (`two_factor_confirmed_at`), the last accepted time step (`two_factor_last_step`), and the
 * recovery codes (`two_factor_recovery_codes`, SHA-256 only).
 *
 * Enrolment: `newSecret()` makes a secret that the enrolling session keeps (sealed with
 * `sealForSession`, see pending-secret); nothing is written to the account until `confirm()`
 * accepts a code from the app for it, which stores it, turns TOTP on and returns 10 recovery
 * codes (the only time they exist in plain text). No other session can learn or pre-seed it. Sign-in: `verifyCode()` accepts a code once (its time step is recorded
 * by a conditional update, so of concurrent requests with one code exactly one wins);
 * `useRecoveryCode()` deletes the code's row, and only the request whose delete removed it wins.
 *
 * A secret that only a previous key (APP_PREVIOUS_KEYS) decrypts is written again under the
 * current key by the next accepted code.
 */
import type { Knex } from 'knex'
import type { Encrypter } from '../../support/encrypter.js'
import type { Logger } from '../../support/logger.js'
import { generateTotpSecret, matchTotp } from './totp.js'
import { generateRecoveryCodes, recoveryCodeHash } from './recovery-codes.js'

type Row = Record<string, unknown>

export const RECOVERY_CODES_TABLE = 'two_factor_recovery_codes'

export interface TwoFactorDependencies {
  db: () => Knex
  /** The users table and its primary key (the auth model's). */
  users: () => { table: string; key: string }
  encrypter: Encrypter
  /** Default `two_factor_recovery_codes`. */
  recoveryTable?: string
  /**
   * The user's trusted devices (that skip the second step), deleted when TOTP is turned off.
   * `available()` is asked before the transaction (SQLite has one connection, which it holds).
   */
  trustedDevices?: { available(): Promise<boolean>; forget(userId: unknown, trx: Knex.Transaction): Promise<unknown> }
  log?: Logger
  /** The clock, in milliseconds (tests). */
  now?: () => number
}

/** What a session keeps sealed for the two-factor pages. */
export type SessionSecret = 'pending' | 'codes'

export interface TwoFactorStatus {
  enabled: boolean
  confirmedAt: Date | null
  /** Unused recovery codes (0 when TOTP is off). */
  recoveryCodes: number
}

/** A TOTP code as typed: 6 digits, spaces allowed (`123 456`); anything else is null. */
export function parseTotpCode(input: unknown): string | null {
  if (typeof input !== 'string' && typeof input !== 'number') return null
  const code = String(input).replace(/\s+/g, '')
  return /^[0-9]{6}$/.test(code) ? code : null
}

function toDate(value: unknown): Date | null {
  if (value === null || value === undefined || value === '') return null
  const date = value instanceof Date ? value : new Date(value as string | number)
  return Number.isNaN(date.getTime()) ? null : date
}

export class TwoFactor {
  readonly #deps: TwoFactorDependencies
  readonly #recovery: string

  constructor(deps: TwoFactorDependencies) {
    this.#deps = deps
    this.#recovery = deps.recoveryTable ?? RECOVERY_CODES_TABLE
  }

  /** Whether the user has TOTP turned on (a code was confirmed). */
  async isEnabled(userId: unknown): Promise<boolean> {
    const row = await this.#row(userId)
    return toDate(row?.two_factor_confirmed_at) !== null
  }

  /** Whether TOTP is on, since when, and how many recovery codes are left. */
  async status(userId: unknown): Promise<TwoFactorStatus> {
    const row = await this.#row(userId)
    const confirmedAt = toDate(row?.two_factor_confirmed_at)
    return { enabled: confirmedAt !== null, confirmedAt, recoveryCodes: confirmedAt ? await this.remainingRecoveryCodes(userId) : 0 }
  }

  /**
   * A new base32 secret for an enrolment. It is not stored on the account: the enrolling session
   * keeps it, sealed (`sealPendingSecret`), until `confirm()` stores it.
   */
  newSecret(): string {
    return generateTotpSecret()
  }

  /**
   * `value` encrypted with APP_KEY for the session (an enrolment's secret, recovery codes waiting to
   * be shown); it opens for the same `purpose` and `userId` only.
   */
  sealForSession(purpose: SessionSecret, value: string, userId: unknown): string {
    return this.#deps.encrypter.encrypt(value, this.#sessionContext(purpose, userId))
  }

  /** The value of `sealed` (from `sealForSession` with the same purpose and user), or null. */
  openFromSession(purpose: SessionSecret, sealed: unknown, userId: unknown): string | null {
    return this.#deps.encrypter.decrypt(sealed, this.#sessionContext(purpose, userId))?.value ?? null
  }

  /**
   * Turns TOTP on with `secret` (the one the enrolling session showed) when `code` is its current
   * code: stores the secret on the account and returns the 10 new recovery codes (their only
   * appearance in plain text), or null (wrong code, already on). Of concurrent confirmations
   * exactly one succeeds.
   */
  async confirm(userId: unknown, secret: string, code: unknown): Promise<string[] | null> {
    const typed = parseTotpCode(code)
    if (typed === null) return null
    const row = await this.#row(userId)
    if (!row || toDate(row.two_factor_confirmed_at)) return null
    const step = matchTotp(secret, typed, { at: this.#now() })
    if (step === null) return null
    const codes = generateRecoveryCodes()
    const { table, key } = this.#users()
    const now = new Date(this.#now())
    return this.#deps.db().transaction(async (trx) => {
      const updated = await trx(table)
        .where(key, userId as string | number)
        .whereNull('two_factor_confirmed_at')
        .update({ two_factor_secret: this.#encrypt(secret, userId), two_factor_confirmed_at: now, two_factor_last_step: step })
      if (updated !== 1) return null
      await this.#replaceCodes(trx, userId, codes, now)
      return codes
    })
  }

  /**
   * Whether `code` (6 digits, spaces ignored) is the user's TOTP code now (one step either side
   * allowed) and was not accepted before. Its step is recorded by one conditional update: of
   * concurrent requests with the same code, exactly one gets true, and no older code works after it.
   */
  async verifyCode(userId: unknown, code: unknown): Promise<boolean> {
    const typed = parseTotpCode(code)
    if (typed === null) return false
    const row = await this.#row(userId)
    if (!row || !toDate(row.two_factor_confirmed_at)) return false
    const secret = this.#decrypt(row.two_factor_secret, userId)
    if (!secret) {
      this.#deps.log?.warn('auth.two_factor_secret_unreadable', { user_id: userId, hint: 'APP_KEY changed without the old key in APP_PREVIOUS_KEYS' })
      return false
    }
    const step = matchTotp(secret.value, typed, { at: this.#now() })
    if (step === null) return false
    const last = row.two_factor_last_step === null || row.two_factor_last_step === undefined ? null : Number(row.two_factor_last_step)
    if (last !== null && step <= last) return false
    const { table, key } = this.#users()
    const updated = await this.#deps
      .db()(table)
      .where(key, userId as string | number)
      .whereNotNull('two_factor_confirmed_at')
      .where('two_factor_secret', row.two_factor_secret as string)
      .where((q) => q.whereNull('two_factor_last_step').orWhere('two_factor_last_step', '<', step))
      .update({ two_factor_last_step: step, ...(secret.rotated ? { two_factor_secret: this.#encrypt(secret.value, userId) } : {}) })
    return updated === 1
  }

  /**
   * Uses up one of the user's recovery codes (case, spaces and dashes ignored): true when it was
   * theirs and unused. Its row is deleted; of concurrent uses exactly one gets true.
   */
  async useRecoveryCode(userId: unknown, code: unknown): Promise<boolean> {
    const hash = recoveryCodeHash(code)
    if (hash === null) return false
    const deleted = await this.#deps.db()(this.#recovery).where({ user_id: userId, code_hash: hash }).delete()
    return deleted === 1
  }

  async remainingRecoveryCodes(userId: unknown): Promise<number> {
    const row = await this.#deps.db()(this.#recovery).where('user_id', userId as string | number).count({ n: '*' }).first()
    return Number(row?.n ?? 0)
  }

  /**
   * 10 new recovery codes in place of the old ones (all at once), or null when TOTP is off. Of
   * concurrent regenerations the last one's codes are the only ones left.
   */
  async regenerateRecoveryCodes(userId: unknown): Promise<string[] | null> {
    const codes = generateRecoveryCodes()
    const { table, key } = this.#users()
    const now = new Date(this.#now())
    return this.#deps.db().transaction(async (trx) => {
      await this.#lockUser(trx, userId)
      const row = await trx(table).where(key, userId as string | number).first('two_factor_confirmed_at')
      if (!toDate(row?.two_factor_confirmed_at)) return null
      await this.#replaceCodes(trx, userId, codes, now)
      return codes
    })
  }

  /**
   * Turns TOTP off: the secret, the recovery codes and the trusted devices go, in one transaction.
   * True when it was on.
   */
  async disable(userId: unknown): Promise<boolean> {
    const trusted = this.#deps.trustedDevices
    const forget = trusted ? await trusted.available() : false
    const { table, key } = this.#users()
    return this.#deps.db().transaction(async (trx) => {
      await this.#lockUser(trx, userId)
      const row = await trx(table).where(key, userId as string | number).first('two_factor_confirmed_at')
      const wasOn = toDate(row?.two_factor_confirmed_at) !== null
      await trx(table).where(key, userId as string | number).update({ two_factor_secret: null, two_factor_confirmed_at: null, two_factor_last_step: null })
      await trx(this.#recovery).where('user_id', userId as string | number).delete()
      if (forget) await trusted!.forget(userId, trx)
      return wasOn
    })
  }

  /**
   * Writes every stored secret that only a previous key (APP_PREVIOUS_KEYS) decrypts again under
   * APP_KEY, so the previous key can be dropped without waiting for each user's next sign-in.
   * `unreadable`: secrets no key this app has decrypts (their users cannot use TOTP until they are
   * turned off and set up again). Each row is rewritten only if unchanged since it was read.
   */
  async reencryptAll(): Promise<{ rewritten: number; current: number; unreadable: number }> {
    const { table, key } = this.#users()
    const counts = { rewritten: 0, current: 0, unreadable: 0 }
    let after: unknown = null
    for (;;) {
      const query = this.#deps.db()(table).whereNotNull('two_factor_secret').orderBy(key).limit(500).select(key, 'two_factor_secret')
      if (after !== null) query.where(key, '>', after as string | number)
      const rows = (await query) as Row[]
      if (rows.length === 0) return counts
      for (const row of rows) {
        const userId = row[key]
        const secret = this.#decrypt(row.two_factor_secret, userId)
        if (!secret) counts.unreadable++
        else if (!secret.rotated) counts.current++
        else {
          const updated = await this.#deps.db()(table).where(key, userId as string | number).where('two_factor_secret', row.two_factor_secret as string).update({ two_factor_secret: this.#encrypt(secret.value, userId) })
          if (updated === 1) counts.rewritten++
        }
      }
      after = rows[rows.length - 1]![key]
    }
  }

  /**
   * Locks the user's row for the rest of the transaction (a no-op update: portable, unlike
   * `SELECT ... FOR UPDATE` on SQLite), so that concurrent changes of the recovery codes run one
   * after the other: of two regenerations the second deletes the first's codes.
   */
  async #lockUser(trx: Knex.Transaction, userId: unknown): Promise<void> {
    const { table, key } = this.#users()
    await trx(table).where(key, userId as string | number).update({ two_factor_confirmed_at: trx.ref('two_factor_confirmed_at') })
  }

  async #replaceCodes(trx: Knex.Transaction, userId: unknown, codes: string[], now: Date): Promise<void> {
    await trx(this.#recovery).where('user_id', userId as string | number).delete()
    await trx(this.#recovery).insert(codes.map((code) => ({ user_id: userId, code_hash: recoveryCodeHash(code), created_at: now })))
  }

  async #row(userId: unknown): Promise<Row | undefined> {
    if (userId === null || userId === undefined || userId === '') return undefined
    const { table, key } = this.#users()
    return this.#deps.db()(table).where(key, userId as string | number).first('two_factor_secret', 'two_factor_confirmed_at', 'two_factor_last_step')
  }

  #users(): { table: string; key: string } {
    return this.#deps.users()
  }

  /** A session value's place, bound into its ciphertext: it opens for that purpose and user only. */
  #sessionContext(purpose: SessionSecret, userId: unknown): string {
    return `${this.#users().table}.two_factor_${purpose}:${String(userId)}`
  }

  /** Where a secret lives, bound into its ciphertext: it decrypts on that user's row only. */
  #context(userId: unknown): string {
    return `${this.#users().table}.two_factor_secret:${String(userId)}`
  }

  #encrypt(secret: string, userId: unknown): string {
    return this.#deps.encrypter.encrypt(secret, this.#context(userId))
  }

  #decrypt(stored: unknown, userId: unknown) {
    return this.#deps.encrypter.decrypt(stored, this.#context(userId))
  }

  #now(): number {
    return this.#deps.now?.() ?? Date.now()
  }
}

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    /** TOTP and recovery codes of the `two_factor` feature. */
    'auth.two_factor': TwoFactor
  }
}
