/**
 * @module auth/email-login/store
 * The live sign-in link and code of each address (`email_login_tokens`, one row per address): the
 * link's token is 32 random bytes whose SHA-256 is kept; the 6-digit code is kept as
 * HMAC-SHA256(APP_KEY, address + code), so a copy of the table gives neither. A new mail replaces
 * the row; using the link or the code deletes it (one request wins: its delete removed the row),
 * so using one ends the other. Rows of a user are the inventory kind `email_logins`.
 */
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto'
import type { Knex } from 'knex'
import { randomToken } from '../../support/random-token.js'
import { sha256Hex } from '../tokens/index.js'
import { storedDate, type InventoryKind, type RevocationReason } from '../inventory/index.js'
import { tableKind } from '../inventory/table-kind.js'

export const EMAIL_LOGIN_TABLE = 'email_login_tokens'
/** A well-formed link token: 32 bytes, base64url. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/

export interface EmailLoginRow {
  id: number
  email: string
  user_id: number | string | null
  token_hash: string
  code_hash: string | null
  created_at: unknown
  expires_at: unknown
}

function epochMs(value: unknown): number {
  const at = storedDate(value)
  return at ? at.getTime() : 0
}

export class EmailLoginStore {
  readonly #db: () => Knex
  readonly #key: Buffer

  constructor(db: () => Knex, appKey: Buffer) {
    this.#db = db
    this.#key = appKey
  }

  /** HMAC(APP_KEY, address + code), hex: what the table keeps of a code. */
  codeHash(address: string, code: string): string {
    return createHmac('sha256', this.#key).update(`${address}\u0000${code}`).digest('hex')
  }

  /** Replaces the address's link and code with new ones, live `minutes`; the secrets (never stored). */
  async replace(address: string, userId: unknown, minutes: number): Promise<{ token: string; code: string }> {
    const token = randomToken(32)
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
    const now = new Date()
    await this.#db().transaction(async (trx) => {
      await trx(EMAIL_LOGIN_TABLE).where('email', address).delete()
      await trx(EMAIL_LOGIN_TABLE).insert({
        email: address,
        user_id: userId ?? null,
        token_hash: sha256Hex(token),
        code_hash: this.codeHash(address, code),
        created_at: now,
        expires_at: new Date(now.getTime() + Math.round(minutes * 60_000)),
      })
    })
    return { token, code }
  }

  /** The live row of a link token, or null (unknown, malformed, expired). Changes nothing. */
  async findByToken(token: string): Promise<EmailLoginRow | null> {
    if (!TOKEN_SHAPE.test(token)) return null
    const row = (await this.#db()(EMAIL_LOGIN_TABLE).where('token_hash', sha256Hex(token)).first()) as EmailLoginRow | undefined
    return row && epochMs(row.expires_at) > Date.now() ? row : null
  }

  /** The address's row, live or not (a code is checked against it), or null. */
  async findByAddress(address: string): Promise<EmailLoginRow | null> {
    return ((await this.#db()(EMAIL_LOGIN_TABLE).where('email', address).first()) as EmailLoginRow | undefined) ?? null
  }

  /** Uses a link: the row when this call deleted it (the one winner), else null. */
  async consumeToken(token: string): Promise<EmailLoginRow | null> {
    const row = await this.findByToken(token)
    if (!row) return null
    const deleted = await this.#db()(EMAIL_LOGIN_TABLE).where({ id: row.id, token_hash: row.token_hash }).delete()
    return Number(deleted) === 1 ? row : null
  }

  /**
   * Checks `code` for `address` in the same work whether or not a code exists (one HMAC, one
   * timing-safe compare, one read); a right, live code deletes the row: the row when this call
   * deleted it, else null.
   *
   * `row` is the row as read when this answer was let through its budget. The delete matches its
   * id alone: an answer over the per-code budget ends the code (`endCode`) at once, and a right
   * answer let through before that, still running, must not lose to it (a burst of right answers
   * would then sign nobody in). A new mail replaces the row (a new id), and the link or another
   * answer that used it first deleted it: either way this delete finds nothing.
   */
  async consumeCode(address: string, code: string, row: EmailLoginRow | null): Promise<EmailLoginRow | null> {
    const given = Buffer.from(this.codeHash(address, code), 'hex')
    const stored = row?.code_hash && /^[0-9a-f]{64}$/.test(row.code_hash) ? Buffer.from(row.code_hash, 'hex') : Buffer.alloc(32)
    const same = timingSafeEqual(given, stored)
    if (!row || !row.code_hash || !same || epochMs(row.expires_at) <= Date.now()) return null
    const deleted = await this.#db()(EMAIL_LOGIN_TABLE).where({ id: row.id }).delete()
    return Number(deleted) === 1 ? row : null
  }

  /** Ends the code of a row (its five answers are spent); the link still works. */
  async endCode(row: EmailLoginRow): Promise<void> {
    await this.#db()(EMAIL_LOGIN_TABLE).where({ id: row.id }).update({ code_hash: null })
  }
}

/** A sign-in link and code end with recovery, a password change and the account. */
const ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'password_reset', 'password_change', 'delete'])

/** The inventory kind: a user's live sign-in links and codes. */
export function emailLoginsKind(): InventoryKind {
  return tableKind({ name: 'email_logins', table: EMAIL_LOGIN_TABLE, endsOn: ENDS_ON, label: () => 'Sign-in link and code' })
}
