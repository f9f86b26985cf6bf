/**
 * @module auth/authenticates
 * The `Authenticates` model mixin: `class User extends Authenticates(Model)`.
 * `static authColumn` (default `email`) is what users log in with; `static passwordColumn`
 * (default `password`) holds the argon2id (or imported bcrypt) hash. Look-ups by the auth column
 * compare the normalised value (`normalizeEmail`: trimmed, NFC, lower-cased, what registration
 * stores) and, for rows stored before that, the trimmed value as typed (`whereEmail`); an empty
 * or non-string value never matches.
 */
import type { ModelClass } from '../database/model.js'
import { whereEmail } from '../database/where-caseless.js'

export interface AuthenticatableStatics {
  authColumn: string
  passwordColumn: string
  findForAuth(value: unknown): Promise<any | null>
}

export function Authenticates<T extends ModelClass>(Base: T) {
  abstract class Authenticatable extends Base {
    static authColumn = 'email'
    static passwordColumn = 'password'
    /** Never in the user's JSON: the encrypted TOTP secret and its bookkeeping. */
    static extraHidden = ['two_factor_secret', 'two_factor_confirmed_at', 'two_factor_last_step', 'password_reset_required_at']

    /** The user whose auth column is `value` (normalised, case-insensitive), or null. */
    static async findForAuth(value: unknown): Promise<any | null> {
      if (typeof value !== 'string') return null
      const wanted = value.trim()
      // NUL never occurs in an address, and PostgreSQL refuses it in text (an error, not a miss).
      if (wanted === '' || wanted.length > 320 || wanted.includes('\u0000')) return null
      const cls = this as unknown as ModelClass & { authColumn: string }
      const column = cls.authColumn
      // normalizeEmail(wanted) and, for legacy rows, wanted as typed, both folded by the database's
      // lower() (the users table's unique lower(email) index): see whereEmail for why both.
      const row = await whereEmail(cls.query(), column, wanted).first()
      return row ? cls.hydrate(row) : null
    }

    getAuthPassword(): string | null {
      const value = (this as any)[(this.constructor as unknown as AuthenticatableStatics).passwordColumn]
      return typeof value === 'string' ? value : null
    }
  }
  return Authenticatable
}
