/**
 * @module api/personal-tokens/repository
 * Personal access tokens in `personal_access_tokens` (`id`, `user_id`, `name`, `token_hash`,
 * `abilities` as JSON text, `last_used_at`, `expires_at`, `created_at`). Only the SHA-256 hex of
 * the whole token is stored: the token is shown once, at creation, and can never be shown again.
 * - `authenticate(token)`: format and checksum first (no query for a malformed token), then one
 *   look-up by `token_hash`; an expired token is refused (its row stays, listed as expired).
 * - `touch()`: `last_used_at` is written at most once a minute per token, by a conditional UPDATE,
 *   so of many concurrent requests at most one writes.
 * - Revoking deletes the row: a revoked token is indistinguishable from one that never existed.
 */
import type { Knex } from 'knex'
import type { DatabaseManager } from '../../database/database-manager.js'
import { driverOf } from '../../database/lookup-value.js'
import { sha256Hex } from '../../auth/tokens/index.js'
import { formatToken, looksPersonal, parseToken, randomSecret } from './token-format.js'
import { normalizeAbilities, parseStoredAbilities } from './abilities.js'

export const PERSONAL_TOKENS_TABLE = 'personal_access_tokens'
/** `last_used_at` moves at most this often per token. */
export const TOUCH_EVERY_MS = 60_000
export const MAX_NAME_LENGTH = 100
/** The longest lifetime accepted: 10 years, in minutes. */
export const MAX_EXPIRES_IN = 10 * 366 * 24 * 60

/** A stored token (never its value). */
export interface PersonalToken {
  id: string
  userId: string
  name: string
  abilities: string[]
  createdAt: Date | null
  lastUsedAt: Date | null
  expiresAt: Date | null
}

export interface CreateTokenOptions {
  /** What the token may do (`ability:<name>` routes); `['*']` is everything; default none. */
  abilities?: readonly string[] | string
  /** Minutes until it expires; `null`/absent: never. */
  expiresIn?: number | null
}

/** A token just created: `token` is its value, shown this once. */
export interface NewPersonalToken extends PersonalToken {
  token: string
}

export type AuthenticateResult = { token: PersonalToken } | { token: null; reason: 'malformed' | 'unknown' | 'expired' }

type Row = Record<string, unknown>

function epochMs(value: unknown): number | null {
  if (value === null || value === undefined) return null
  const ms = new Date(value as string | number | Date).getTime()
  return Number.isFinite(ms) ? ms : null
}

function dateOf(value: unknown): Date | null {
  const ms = epochMs(value)
  return ms === null ? null : new Date(ms)
}

function fromRow(row: Row): PersonalToken {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    name: typeof row.name === 'string' ? row.name : '',
    abilities: parseStoredAbilities(row.abilities),
    createdAt: dateOf(row.created_at),
    lastUsedAt: dateOf(row.last_used_at),
    expiresAt: dateOf(row.expires_at),
  }
}

/** A token name: trimmed, 1 to 100 characters, no control characters. Throws a RangeError. */
export function normalizeName(input: unknown): string {
  const name = typeof input === 'string' ? input.trim() : ''
  if (name === '') throw new RangeError('A token needs a name.')
  if (name.length > MAX_NAME_LENGTH) throw new RangeError(`A token name has at most ${MAX_NAME_LENGTH} characters.`)
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new RangeError('A token name cannot contain control characters.')
  return name
}

/** Minutes until expiry (a positive number up to 10 years) or null. Throws a RangeError. */
export function normalizeExpiresIn(input: unknown): number | null {
  if (input === undefined || input === null || input === '') return null
  const minutes = typeof input === 'string' ? Number(input) : input
  if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes <= 0) throw new RangeError('The expiry must be a positive number of minutes.')
  if (minutes > MAX_EXPIRES_IN) throw new RangeError('The expiry can be at most 10 years.')
  return minutes
}

export class PersonalTokenRepository {
  /** The connection of the users table (the model's `connection`; default connection when unset). */
  readonly connection: string | undefined
  readonly #database: () => DatabaseManager

  /** `database`: the app's manager (or, for `user.createToken()`, the model's). */
  constructor(options: { database: () => DatabaseManager; connection?: string }) {
    this.connection = options.connection
    this.#database = options.database
  }

  get db(): Knex {
    return this.#database().connection(this.connection)
  }

  /**
   * Creates a token for `userId` and returns it with its value (the only time the value exists
   * outside the client). Throws a RangeError for a bad name, ability or expiry.
   */
  async create(userId: unknown, name: unknown, options: CreateTokenOptions = {}): Promise<NewPersonalToken> {
    const cleanName = normalizeName(name)
    const abilities = normalizeAbilities(options.abilities)
    const expiresIn = normalizeExpiresIn(options.expiresIn)
    const now = new Date()
    const expiresAt = expiresIn === null ? null : new Date(now.getTime() + Math.round(expiresIn * 60_000))
    const secret = randomSecret()
    const knex = this.db
    // The value holds the row id, known only after the insert: the row is inserted with the hash
    // of a value no token can have (no `trw_` prefix), then given the real one, in one transaction.
    const token = await knex.transaction(async (trx) => {
      const row = {
        user_id: userId,
        name: cleanName,
        token_hash: sha256Hex(`pending:${secret}`),
        abilities: JSON.stringify(abilities),
        created_at: now,
        expires_at: expiresAt,
      }
      let id: unknown
      if (driverOf(knex) === 'postgres') {
        const rows = (await trx(PERSONAL_TOKENS_TABLE).insert(row).returning('id')) as Row[]
        id = rows[0]?.id
      } else {
        id = ((await trx(PERSONAL_TOKENS_TABLE).insert(row)) as unknown[])[0]
      }
      const value = formatToken(String(id), secret)
      await trx(PERSONAL_TOKENS_TABLE).where('id', id as number).update({ token_hash: sha256Hex(value) })
      return { id: String(id), value }
    })
    return { token: token.value, id: token.id, userId: String(userId), name: cleanName, abilities, createdAt: now, lastUsedAt: null, expiresAt }
  }

  /**
   * The token a Bearer value names: a malformed value or a wrong checksum is refused before any
   * query; then one look-up by `token_hash`; an expired token is refused.
   */
  async authenticate(value: string, now = Date.now()): Promise<AuthenticateResult> {
    const parsed = parseToken(value)
    if (!parsed) return { token: null, reason: 'malformed' }
    const row = await this.#database().prepared(this.connection).findBy(PERSONAL_TOKENS_TABLE, 'token_hash', sha256Hex(value))
    if (!row || String(row.id) !== parsed.id) return { token: null, reason: 'unknown' }
    const token = fromRow(row)
    if (token.expiresAt && token.expiresAt.getTime() <= now) return { token: null, reason: 'expired' }
    return { token }
  }

  /**
   * Moves `last_used_at` to now when it is more than a minute old; the UPDATE repeats that
   * condition, so of concurrent requests at most one writes. Whether this call wrote.
   */
  async touch(token: PersonalToken, now = Date.now()): Promise<boolean> {
    const last = token.lastUsedAt?.getTime() ?? null
    if (last !== null && now - last < TOUCH_EVERY_MS) return false
    const updated = await this.db(PERSONAL_TOKENS_TABLE)
      .where('id', token.id)
      .where((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', new Date(now - TOUCH_EVERY_MS)))
      .update({ last_used_at: new Date(now) })
    return Number(updated) > 0
  }

  /** The user's tokens, newest first. */
  async list(userId: unknown): Promise<PersonalToken[]> {
    const rows = (await this.db(PERSONAL_TOKENS_TABLE)
      .where('user_id', userId as string | number)
      .orderBy('id', 'desc')
      .select('id', 'user_id', 'name', 'abilities', 'created_at', 'last_used_at', 'expires_at')) as Row[]
    return rows.map(fromRow)
  }

  /** Deletes token `id` when it is `userId`'s; the deleted token, or null (unknown or someone else's). */
  async revoke(userId: unknown, id: unknown): Promise<PersonalToken | null> {
    const key = typeof id === 'string' && /^[1-9][0-9]{0,18}$/.test(id) ? id : typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? String(id) : null
    if (key === null) return null
    const row = (await this.db(PERSONAL_TOKENS_TABLE).where({ id: key, user_id: userId as string | number }).first()) as Row | undefined
    if (!row) return null
    const deleted = await this.db(PERSONAL_TOKENS_TABLE).where({ id: key, user_id: userId as string | number }).delete()
    return Number(deleted) > 0 ? fromRow(row) : null
  }

  /** Deletes the token whose value is `value` (RFC 7009 revocation); the deleted token, or null. */
  async revokeByValue(value: unknown): Promise<PersonalToken | null> {
    if (typeof value !== 'string' || !looksPersonal(value) || !parseToken(value)) return null
    const digest = sha256Hex(value)
    const row = (await this.db(PERSONAL_TOKENS_TABLE).where('token_hash', digest).first()) as Row | undefined
    if (!row) return null
    const deleted = await this.db(PERSONAL_TOKENS_TABLE).where('token_hash', digest).delete()
    return Number(deleted) > 0 ? fromRow(row) : null
  }

  /** Deletes every token of `userId` (through `knex`, which may be a transaction); how many. */
  async revokeAll(userId: unknown, knex: Knex | Knex.Transaction = this.db): Promise<number> {
    return Number(await knex(PERSONAL_TOKENS_TABLE).where('user_id', userId as string | number).delete())
  }
}

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    'api.personal_tokens': PersonalTokenRepository
  }
}
