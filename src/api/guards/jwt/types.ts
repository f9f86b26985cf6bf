/**
 * @module api/guards/jwt/types
 * What the JWT guard is built from, and the user provider contract its look-ups go through.
 */
import type { Knex } from 'knex'
import type { AuthUser, CredentialUserProvider } from '../../../auth/types.js'
import type { GuardDependencies } from '../../../auth/guards/base-guard.js'
import type { JwtPayload } from '../../jwt/index.js'
import type { JwtService } from '../../jwt-service.js'
import type { PersonalToken, PersonalTokenRepository } from '../../personal-tokens/repository.js'

/** A user's stored row, read by primary key: the digest of its current token and the user. */
export interface TokenRecord<User> {
  /** The SHA-256 hex of the user's current JWT, or null when it has none. */
  readonly digest: string | null
  /** The user, built from the row on first call (the same object on every call). */
  user(): User
}

/** Users, their passwords and their current token's digest. */
export interface JwtUserProvider<User extends AuthUser = AuthUser> extends CredentialUserProvider<User> {
  /** User `id`'s record: one primary-key look-up; null when there is no such user. */
  findRecord(id: string): Promise<TokenRecord<User> | null>
  /** Optional: `findRecord` answered without a promise when the row is at hand. */
  findRecordNow?(id: string): TokenRecord<User> | null | Promise<TokenRecord<User> | null>
  /**
   * Optional: where the users' rows are (table, primary key, connection name), so a query that
   * already joins them (token families) can hand the row to `recordFromRow` instead of a second read.
   */
  readonly rowSource?: { readonly table: string; readonly primaryKey: string; readonly connection: string | undefined }
  /** Optional, with `rowSource`: the record of a row read from it. */
  recordFromRow?(row: Record<string, unknown>): TokenRecord<User>
  /** Stores `digest` as `user`'s current token; null clears it (no token is current). */
  storeDigest(user: User, digest: string | null): Promise<void>
  /** Atomically replaces `oldDigest` by `newDigest`; false when `oldDigest` was not the stored one. */
  replaceDigest(id: string, oldDigest: string, newDigest: string): Promise<boolean>
  /** Clears user `id`'s token only while it is `digest` (atomically); whether it did. */
  clearDigestIf(id: string, digest: string): Promise<boolean>
  /** Clears user `id`'s token (through `db`, which may be a transaction); how many rows changed. */
  clearDigest(id: unknown, db: Knex | Knex.Transaction): Promise<number>
}

/** A bearer token whose signature, algorithm, expiry and version have been verified. */
export interface VerifiedToken {
  readonly token: string
  readonly payload: JwtPayload
  /** Its SHA-256 hex, computed on first use (most requests never need it). */
  readonly digest: string
  /** Set when the Bearer value was a personal access token (`trw_...`), not a JWT. */
  readonly personal?: PersonalToken
}

export interface JwtGuardDependencies<User extends AuthUser> extends GuardDependencies<User> {
  provider: JwtUserProvider<User>
  jwt: JwtService
  /** Personal access tokens (`trw_...` Bearer values); without it they are refused. */
  personal?: PersonalTokenRepository
}
