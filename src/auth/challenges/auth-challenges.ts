/**
 * @module auth/challenges/auth-challenges
 * Short-lived single-use secrets of an unfinished sign-in step (`auth_challenges`): a passkey
 * ceremony's challenge, the API's `mfa_token`. Only the SHA-256 of a value is stored. `consume()`
 * deletes the row, and only the request whose delete removed it gets it: of concurrent uses of
 * one value, in however many processes, exactly one succeeds.
 */
import type { Knex } from 'knex'
import { randomToken, sha256Hex } from '../tokens/index.js'

/** `mfa*`: the API's second step, by the method of the first (`mfa` a password, `mfa_email_code`, ...). */
export type ChallengePurpose = 'passkey_register' | 'passkey_login' | 'mfa' | 'mfa_social' | 'mfa_email_link' | 'mfa_email_code'

export interface ChallengeRow {
  id: number
  purpose: ChallengePurpose
  user_id: number | null
  expires_at: Date
}

const TABLE = 'auth_challenges'

function epochMs(value: unknown): number {
  return new Date(value as string | number | Date).getTime()
}

/** Values are base64url, 16 to 128 characters; anything else is refused without a query. */
function plausible(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 16 && value.length <= 128 && /^[A-Za-z0-9_-]+$/.test(value)
}

function purposes(purpose: ChallengePurpose | readonly ChallengePurpose[]): ChallengePurpose[] {
  return typeof purpose === 'string' ? [purpose] : [...purpose]
}

export class AuthChallenges {
  readonly #db: () => Knex

  constructor(db: () => Knex) {
    this.#db = db
  }

  /**
   * Stores a challenge for `purpose` (and `userId`, or null for an anonymous ceremony), valid for
   * `seconds`. `value` is the caller's own random value (a WebAuthn challenge), else 32 random bytes.
   */
  async create(purpose: ChallengePurpose, userId: unknown, seconds: number, value: string = randomToken(32)): Promise<string> {
    const now = new Date()
    await this.#db()(TABLE).insert({
      purpose,
      challenge_hash: sha256Hex(value),
      user_id: userId ?? null,
      created_at: now,
      expires_at: new Date(now.getTime() + seconds * 1000),
    })
    return value
  }

  /** The live row of `value` without using it up, or null (unknown, used, expired, other purpose). */
  async peek(value: unknown, purpose: ChallengePurpose | readonly ChallengePurpose[]): Promise<ChallengeRow | null> {
    if (!plausible(value)) return null
    const row = await this.#db()(TABLE).where({ challenge_hash: sha256Hex(value) }).whereIn('purpose', purposes(purpose)).first()
    if (!row || epochMs(row.expires_at) <= Date.now()) return null
    return row as ChallengeRow
  }

  /** Uses `value` up: its row, or null. Of concurrent calls with one value exactly one gets the row. */
  async consume(value: unknown, purpose: ChallengePurpose | readonly ChallengePurpose[], trx?: Knex.Transaction): Promise<ChallengeRow | null> {
    if (!plausible(value)) return null
    const db = trx ?? this.#db()
    const digest = sha256Hex(value)
    const row = await db(TABLE).where({ challenge_hash: digest }).whereIn('purpose', purposes(purpose)).first()
    if (!row) return null
    const deleted = await db(TABLE).where({ id: row.id, challenge_hash: digest }).delete()
    if (deleted !== 1 || epochMs(row.expires_at) <= Date.now()) return null
    return row as ChallengeRow
  }

  /** Deletes every challenge of a user. */
  async revokeAll(userId: unknown, trx?: Knex.Transaction): Promise<number> {
    return (trx ?? this.#db())(TABLE).where('user_id', userId as number).delete()
  }

  /** Deletes expired rows; the number deleted (`craft auth:prune`). */
  async prune(now = new Date()): Promise<number> {
    return this.#db()(TABLE).where('expires_at', '<=', now).delete()
  }
}
