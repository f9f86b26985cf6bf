/**
 * @module api/families/token-families
 * Per-device token families (`DRIVERS.jwt.store = 'table'`): the API's JWTs kept in `api_tokens`,
 * one row per token (its SHA-256 only), grouped by a random family id that every token of one
 * device carries as its `fid` claim.
 * - `start()`: a login (POST authRoute) starts a new family with its first token.
 * - `rotate()`: reauth. The swap is one conditional UPDATE (`WHERE token_hash = old AND
 *   replaced_by_hash IS NULL`), so of N concurrent reauths with one token, in one process or
 *   several, exactly one rotates. Every other caller reads the row back: inside
 *   `reuse_window` seconds it answers the same successor (kept encrypted with APP_KEY on the
 *   replaced row for that time only); after it, the family is revoked (reuse detection, RFC 9700
 *   §4.14) and the caller gets `E_JWT_REUSED`. A family older than `max_age` minutes reauths no
 *   more (`E_JWT_FAMILY_EXPIRED`): the client logs in again.
 * - `isCurrent()`: with `authenticates: true`, a token must be its family's current one.
 * - `endByToken()`, `revokeFamily()`, `revokeUser()`: logout, revoke by value, the devices page
 *   and the auth inventory (`api_tokens`).
 * Failures are `JwtError`s with a code; the guard turns them into HTTP answers.
 */
import { retryOnDeadlock } from '../../database/retry-deadlock.js'
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import type { DatabaseManager } from '../../database/database-manager.js'
import { UNAVAILABLE, isPlainIdentifier, quoteIdentifier } from '../../database/prepared-lookup.js'
import { JwtError, JwtInvalidError, JwtRevokedError, sha256Hex, type JwtPayload } from '../jwt/index.js'
import { describeUserAgent } from '../../auth/accounts/devices.js'

export const API_TOKENS_TABLE = 'api_tokens'
/** `last_used_at` moves at most this often per token (authenticated requests). */
const TOUCH_EVERY_MS = 60_000

/** Encrypts and decrypts a successor for the reuse window (APP_KEY; see ApiProvider). */
export interface Sealer {
  seal(value: string): string
  open(sealed: string): string | undefined
}

export interface FamilyOptions {
  /** The app's database manager. */
  database: () => DatabaseManager
  /** Users' database connection (the model's). */
  connection?: string
  /** Seconds during which a replaced token is answered its successor (default 10). */
  reuseWindow: number
  /** A family's life in minutes (default 43200); null: unlimited. */
  maxAge: number | null
  /** Signs a token for `sub` with extra claims. */
  sign(sub: string, claims: Record<string, unknown>): string
  sealer: Sealer
  now?: () => number
}

/** Where a token was asked for: the device label and address stored with the family. */
export interface FamilyMeta {
  userAgent?: string | null
  ip?: string | null
}

/** What a reuse detection tells the guard (the `cause` of an `E_JWT_REUSED` JwtError). */
export interface ReuseDetail {
  userId: string
  familyId: string
  /** This request revoked the family (others racing it only learn it is gone): emit once. */
  detected: boolean
}

type Row = Record<string, any>

function ms(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (value === null || value === undefined || value === '') return null
  const t = new Date(value as string | number | Date).getTime()
  return Number.isFinite(t) ? t : null
}

/**
 * The api_tokens columns `currentWithUserNow` reads, first in its rows (the user's columns follow):
 * read by position, so the user's own column names never clash with them.
 */
const JOINED_COLUMNS = ['id', 'user_id', 'family_id', 'replaced_by_hash', 'revoked_at', 'expires_at', 'family_created_at', 'last_used_at'] as const

/** `currentWithUserNow`'s SQL (identifiers checked by the caller). */
function joinedSql(usersTable: string, primaryKey: string): string {
  const token = JOINED_COLUMNS.map((c) => `t."${c}"`).join(', ')
  return `select ${token}, u.* from "${API_TOKENS_TABLE}" t join ${quoteIdentifier(usersTable)} u on u.${quoteIdentifier(primaryKey)} = t."user_id" where t."token_hash" = ? limit 1`
}

/** A family id as the devices page shows it: `api-<fid>`. */
const DEVICE_ID = /^api-([A-Za-z0-9_-]{22})$/

export class TokenFamilies {
  readonly reuseWindow: number
  readonly maxAge: number | null
  readonly #options: FamilyOptions
  /** `currentWithUserNow`'s statement for the last users table asked about. */
  #joined: { table: string; primaryKey: string; key: string; sql: string } | undefined

  constructor(options: FamilyOptions) {
    this.#options = options
    this.reuseWindow = options.reuseWindow
    this.maxAge = options.maxAge
  }

  /** The connection name the families live on (the users' model's). */
  get connection(): string | undefined {
    return this.#options.connection
  }

  get db(): Knex {
    return this.#options.database().connection(this.#options.connection)
  }

  #now(): number {
    return (this.#options.now ?? Date.now)()
  }

  /** A new family for `userId`, and its first token. */
  async start(userId: string, meta: FamilyMeta = {}, claims: Record<string, unknown> = {}): Promise<{ token: string; familyId: string }> {
    const familyId = randomBytes(16).toString('base64url')
    const token = this.#options.sign(userId, { ...claims, fid: familyId })
    const now = new Date(this.#now())
    await this.db(API_TOKENS_TABLE).insert({
      family_id: familyId,
      user_id: userId,
      token_hash: sha256Hex(token),
      device: describeUserAgent(meta.userAgent).slice(0, 255),
      ip: meta.ip ? String(meta.ip).slice(0, 45) : null,
      created_at: now,
      last_used_at: now,
      family_created_at: now,
      expires_at: this.maxAge === null ? null : new Date(now.getTime() + Math.round(this.maxAge * 60_000)),
    })
    return { token, familyId }
  }

  /**
   * Reauth: the successor of `oldToken` (already verified, expiry ignored: `payload`) in its
   * family, signed with `claims` too; throws a JwtError (see the module).
   */
  async rotate(oldToken: string, payload: JwtPayload, meta: FamilyMeta = {}, claims: Record<string, unknown> = {}): Promise<{ token: string; sub: string; retried: boolean }> {
    const fid = payload.fid
    // A token of the single-column store (no family) cannot be reissued here.
    if (typeof fid !== 'string' || fid === '') throw new JwtRevokedError()
    const oldHash = sha256Hex(oldToken)
    let row = (await this.db(API_TOKENS_TABLE).where('token_hash', oldHash).first()) as Row | undefined
    if (!row) {
      // Signed by this app, of a family, yet unknown: a replaced token whose row was pruned. If
      // its family still lives, that is reuse like any other.
      const alive = await this.db(API_TOKENS_TABLE).where({ family_id: fid }).whereNull('revoked_at').first('user_id')
      if (alive && String(alive.user_id) === payload.sub) throw await this.#reused(payload.sub, fid)
      throw new JwtRevokedError()
    }
    if (String(row.user_id) !== payload.sub || row.family_id !== fid) throw new JwtInvalidError('The token does not belong to its family.')
    if (row.revoked_at !== null && row.revoked_at !== undefined) throw new JwtRevokedError()
    const now = this.#now()
    if (this.#expired(row, now)) throw new JwtError('E_JWT_FAMILY_EXPIRED', 'The token family is older than max_age: log in again.')
    if (row.replaced_by_hash === null || row.replaced_by_hash === undefined) {
      const token = this.#options.sign(payload.sub, { ...claims, fid })
      const newHash = sha256Hex(token)
      const at = new Date(now)
      // MySQL/MariaDB may pick one of several concurrent rotations as a deadlock victim: run it again
      // (its conditional update then sees the winner's rotation and it reads the successor).
      const won = await retryOnDeadlock(() => this.db.transaction(async (trx) => {
        // The rotation itself: only one caller can move this row from current to replaced.
        const changed = Number(
          await trx(API_TOKENS_TABLE)
            .where('token_hash', oldHash)
            .whereNull('replaced_by_hash')
            .whereNull('revoked_at')
            .update({ replaced_by_hash: newHash, replaced_at: at, successor: this.#options.sealer.seal(token) }),
        )
        if (changed !== 1) return false
        await trx(API_TOKENS_TABLE).insert({
          family_id: fid,
          user_id: row!.user_id,
          token_hash: newHash,
          // The family's device stays the one that logged in; the address is the latest seen.
          device: row!.device,
          ip: meta.ip ? String(meta.ip).slice(0, 45) : row!.ip,
          created_at: at,
          last_used_at: at,
          family_created_at: row!.family_created_at,
          expires_at: row!.expires_at,
        })
        // Successors kept for retries whose window has passed are no longer needed: forget them
        // (those still inside it stay, so a quick second rotation does not turn a retry into reuse).
        await trx(API_TOKENS_TABLE)
          .where('family_id', fid)
          .whereNotNull('successor')
          .where('replaced_at', '<', new Date(now - this.reuseWindow * 1000))
          .update({ successor: null })
        return true
      }))
      if (won) return { token, sub: payload.sub, retried: false }
      // Lost the race: read what the winner wrote (outside the transaction, so it is visible).
      row = (await this.db(API_TOKENS_TABLE).where('token_hash', oldHash).first()) as Row | undefined
      if (!row || (row.revoked_at !== null && row.revoked_at !== undefined)) throw new JwtRevokedError()
    }
    // Already replaced: a retry inside the window gets the same successor; later, it is reuse.
    const replacedAt = ms(row.replaced_at)
    if (replacedAt !== null && now - replacedAt <= this.reuseWindow * 1000 && typeof row.successor === 'string') {
      const successor = this.#options.sealer.open(row.successor)
      if (successor !== undefined) {
        const live = await this.db(API_TOKENS_TABLE).where('token_hash', sha256Hex(successor)).whereNull('revoked_at').first('id')
        if (!live) throw new JwtRevokedError()
        return { token: successor, sub: payload.sub, retried: true }
      }
    }
    throw await this.#reused(payload.sub, fid)
  }

  /** Revokes family `fid` and returns the `E_JWT_REUSED` error to throw. */
  async #reused(userId: string, familyId: string): Promise<JwtError> {
    const detected = (await this.revokeFamily(userId, familyId)) > 0
    const detail: ReuseDetail = { userId, familyId, detected }
    return new JwtError('E_JWT_REUSED', 'A replaced token of this family was presented again: the family is revoked.', { cause: detail })
  }

  #expired(row: Row, now: number): boolean {
    const expires = ms(row.expires_at)
    if (expires !== null && now >= expires) return true
    // A lowered max_age applies to families already running too.
    const started = ms(row.family_created_at)
    return this.maxAge !== null && started !== null && now >= started + this.maxAge * 60_000
  }

  /**
   * Whether `digest` is the current token of family `fid` of user `sub` (one look-up by the
   * unique `token_hash`); moves `last_used_at` on, at most once a minute.
   */
  async isCurrent(sub: string, fid: unknown, digest: string): Promise<boolean> {
    return this.isCurrentNow(sub, fid, digest)
  }

  /**
   * `isCurrent` without a promise when the row is at hand (SQLite's kept statement, see
   * PreparedLookup). The `last_used_at` write, when due, runs in the background: bookkeeping
   * never delays nor fails the request.
   */
  isCurrentNow(sub: string, fid: unknown, digest: string): boolean | Promise<boolean> {
    if (typeof fid !== 'string') return false
    const row = this.#options.database().prepared(this.#options.connection).lookup(API_TOKENS_TABLE, 'token_hash', digest) as Row | undefined | Promise<Row | undefined>
    return row instanceof Promise ? row.then((found) => this.#current(found, sub, fid)) : this.#current(row, sub, fid)
  }

  /**
   * `isCurrent` and the user's row in one statement (api_tokens joined to `users` on its primary
   * key), synchronously on SQLite's kept handle: what a request with `authenticates: true` needs,
   * for one look-up instead of two. `UNAVAILABLE` where that cannot run (see
   * `PreparedLookup.queryNow`): the caller then calls `isCurrentNow` and reads the user itself.
   */
  currentWithUserNow(sub: string, fid: unknown, digest: string, users: { table: string; primaryKey: string }): { current: boolean; user: Row | undefined } | typeof UNAVAILABLE {
    if (typeof fid !== 'string') return { current: false, user: undefined }
    let joined = this.#joined
    if (joined?.table !== users.table || joined.primaryKey !== users.primaryKey) {
      if (!isPlainIdentifier(users.table) || !isPlainIdentifier(users.primaryKey)) return UNAVAILABLE
      joined = this.#joined = {
        table: users.table,
        primaryKey: users.primaryKey,
        key: `families-user\u0000${users.table}\u0000${users.primaryKey}`,
        sql: joinedSql(users.table, users.primaryKey),
      }
    }
    const prepared = this.#options.database().prepared(this.#options.connection)
    const values = prepared.queryNow(joined.key, joined.sql, digest)
    if (values === UNAVAILABLE) return UNAVAILABLE
    if (!values) return { current: false, user: undefined }
    const token: Row = {
      id: values[0],
      user_id: values[1],
      family_id: values[2],
      replaced_by_hash: values[3],
      revoked_at: values[4],
      expires_at: values[5],
      family_created_at: values[6],
      last_used_at: values[7],
    }
    const columns = prepared.columnsOf(joined.key)!
    const user: Row = {}
    for (let i = JOINED_COLUMNS.length; i < values.length; i++) user[columns[i]!] = values[i]
    return { current: this.#current(token, sub, fid), user }
  }

  #current(row: Row | undefined, sub: string, fid: string): boolean {
    if (!row || String(row.user_id) !== sub || row.family_id !== fid) return false
    if (row.replaced_by_hash !== null && row.replaced_by_hash !== undefined) return false
    if (row.revoked_at !== null && row.revoked_at !== undefined) return false
    const now = this.#now()
    if (this.#expired(row, now)) return false
    const last = ms(row.last_used_at)
    if (last === null || now - last >= TOUCH_EVERY_MS) this.#touch(row.id, now)
    return true
  }

  #touch(id: unknown, now: number): void {
    this.db(API_TOKENS_TABLE)
      .where('id', id as number)
      .where((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', new Date(now - TOUCH_EVERY_MS)))
      .update({ last_used_at: new Date(now) })
      .catch(() => undefined)
  }

  /**
   * Ends the family of `token` when it is that family's current (unrevoked) token: logout and
   * RFC 7009 revocation. Returns the user id, or null when nothing was ended.
   */
  async endByToken(token: string, payload: JwtPayload): Promise<string | null> {
    const fid = payload.fid
    if (typeof fid !== 'string') return null
    const row = (await this.db(API_TOKENS_TABLE).where('token_hash', sha256Hex(token)).first()) as Row | undefined
    if (!row || String(row.user_id) !== payload.sub || row.family_id !== fid) return null
    if (row.replaced_by_hash !== null && row.replaced_by_hash !== undefined) return null
    return (await this.revokeFamily(payload.sub, fid)) > 0 ? payload.sub : null
  }

  /** Revokes every token of family `familyId` of `userId`; how many rows it changed. */
  async revokeFamily(userId: unknown, familyId: string, knex: Knex | Knex.Transaction = this.db): Promise<number> {
    const at = new Date(this.#now())
    const revoke = async () =>
      Number(
        await knex(API_TOKENS_TABLE)
          .where({ family_id: familyId, user_id: userId as string })
          .whereNull('revoked_at')
          .update({ revoked_at: at, successor: null }),
      )
    // On its own (not inside a caller's transaction) it can be retried after a deadlock.
    return knex === this.db ? retryOnDeadlock(revoke) : revoke()
  }

  /** Revokes every family of the user (through `knex`, which may be a transaction). */
  async revokeUser(userId: unknown, knex: Knex | Knex.Transaction = this.db): Promise<number> {
    return Number(
      await knex(API_TOKENS_TABLE)
        .where('user_id', userId as string)
        .whereNull('revoked_at')
        .update({ revoked_at: new Date(this.#now()), successor: null }),
    )
  }

  /** The user's live families: one current row each (for the devices page). */
  async listCurrent(userId: unknown): Promise<Row[]> {
    const now = new Date(this.#now())
    return (await this.db(API_TOKENS_TABLE)
      .where('user_id', userId as string)
      .whereNull('replaced_by_hash')
      .whereNull('revoked_at')
      .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .select('family_id', 'device', 'ip', 'family_created_at', 'last_used_at', 'created_at')) as Row[]
  }

  /** `api-<fid>` → fid, or null. */
  static familyOfDeviceId(id: string): string | null {
    return DEVICE_ID.exec(id)?.[1] ?? null
  }
}
