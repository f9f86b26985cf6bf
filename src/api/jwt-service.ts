/**
 * @module api/jwt-service
 * Issues, verifies and re-issues the API's JWTs for one model (`DRIVERS.jwt` of `config/api.ts`).
 * - Issuing stores the SHA-256 hex digest of the JWT in the model's token column.
 * - `authenticate` verifies signature, algorithm, expiry and version; with `authenticates: true`
 *   it also checks that the digest is the one stored for `sub` (one primary-key lookup through a
 *   statement prepared once per connection), otherwise it makes no query at all.
 * - `reauth` ignores expiry only; the stored digest must match and is replaced with
 *   `UPDATE ... WHERE pk = sub AND column = old digest`, so exactly one of N concurrent reauths
 *   with one token wins and the old token can never be reauthed again.
 */
import { JwtCodec, JwtError, JwtInvalidError, sha256Hex, type JwtPayload } from './jwt/index.js'
import { ReauthFailedError, TokenInvalidError } from './errors.js'
import { getDatabase } from '../database/database-manager.js'
import { timingSafeEqualString } from '../auth/tokens/index.js'

export interface JwtDriverConfig {
  algorithm: string
  secret: string | null | undefined
  model: any
  expires: number | null
  authenticates: boolean
  version: number | null
  leeway?: number
  /**
   * Secrets that still verify (never sign), so JWT_SECRET can be rotated without logging every
   * API client out: `previous_secrets` in config/api.ts, else JWT_PREVIOUS_SECRETS (comma-separated).
   */
  previousSecrets?: string[]
}

export interface VerifiedToken {
  token: string
  digest: string
  payload: JwtPayload
}

/**
 * A verified token whose digest is computed on first use (most requests never need it). With
 * `authenticates: true` it also keeps the user row read for the digest check, so
 * LoadUserMiddleware does not read it a second time in the same request.
 */
class LazyVerifiedToken implements VerifiedToken {
  #digest: string | undefined
  readonly row: Record<string, unknown> | undefined

  constructor(
    readonly token: string,
    readonly payload: JwtPayload,
    digest?: string,
    row?: Record<string, unknown>,
  ) {
    this.#digest = digest
    this.row = row
  }

  get digest(): string {
    return (this.#digest ??= sha256Hex(this.token))
  }
}

export class JwtService {
  readonly codec: JwtCodec
  /** Codecs for previous secrets: they verify tokens signed before a rotation. */
  readonly previous: JwtCodec[]
  readonly model: any
  readonly column: string
  readonly authenticates: boolean

  constructor(config: JwtDriverConfig) {
    this.codec = new JwtCodec({
      algorithm: config.algorithm,
      secret: config.secret,
      expires: config.expires,
      version: config.version,
      leeway: config.leeway,
    })
    this.previous = (config.previousSecrets ?? []).map(
      (secret) => new JwtCodec({ algorithm: config.algorithm, secret, expires: config.expires, version: config.version, leeway: config.leeway }),
    )
    this.model = config.model
    this.column = config.model?.tokenColumn ?? 'api_token'
    this.authenticates = config.authenticates === true
  }

  get primaryKey(): string {
    return this.model.getPrimaryKey?.() ?? 'id'
  }

  /** Signs a token for `user`, stores its digest and returns the JWT. */
  async issue(user: any): Promise<string> {
    const { token } = this.codec.sign(String(user.getKey()))
    const digest = sha256Hex(token)
    await this.model.query().where(this.primaryKey, user.getKey()).update({ [this.column]: digest })
    user.forceFill?.({ [this.column]: digest })
    return token
  }

  /** Verifies a presented token for a request; throws TokenInvalidError. */
  async authenticate(token: string): Promise<VerifiedToken> {
    let payload: JwtPayload
    try {
      payload = this.#verify(token, false)
    } catch (error) {
      if (error instanceof JwtError) throw new TokenInvalidError({ cause: error })
      throw error
    }
    if (!this.authenticates) return new LazyVerifiedToken(token, payload)
    const digest = sha256Hex(token)
    const row = await this.#row(payload.sub)
    if (!this.#holds(row, digest)) throw new TokenInvalidError()
    return new LazyVerifiedToken(token, payload, digest, row)
  }

  /** The user `verified` names: the row read by the `authenticates` check when there was one. */
  userFor(verified: VerifiedToken): Promise<any | null> {
    const row = verified instanceof LazyVerifiedToken ? verified.row : undefined
    return row && typeof this.model.hydrate === 'function' ? Promise.resolve(this.model.hydrate(row)) : this.findById(verified.payload.sub)
  }

  /** Verifies with the current secret, then with each previous one (signature failures only). */
  #verify(token: string, ignoreExpiration: boolean): JwtPayload {
    try {
      return this.codec.verify(token, { ignoreExpiration })
    } catch (error) {
      if (!(error instanceof JwtInvalidError) || this.previous.length === 0) throw error
      for (const codec of this.previous) {
        try {
          return codec.verify(token, { ignoreExpiration })
        } catch (inner) {
          if (!(inner instanceof JwtInvalidError)) throw inner
        }
      }
      throw error
    }
  }

  /** True when `digest` is the one stored for user `sub`. */
  async isCurrent(sub: string, digest: string): Promise<boolean> {
    return this.#holds(await this.#row(sub), digest)
  }

  /** The user row for `sub` (one primary-key lookup through a prepared statement). */
  #row(sub: string): Promise<Record<string, unknown> | undefined> {
    return getDatabase().prepared(this.model.connection).findBy(this.model.getTable(), this.primaryKey, sub)
  }

  #holds(row: Record<string, unknown> | undefined, digest: string): boolean {
    return row !== undefined && timingSafeEqualString(row[this.column], digest)
  }

  /** Exchanges a (possibly expired) token for a new one; throws ReauthFailedError. */
  async reauth(oldToken: unknown): Promise<string> {
    return (await this.reissue(oldToken)).token
  }

  /** `reauth()`, also naming the user (`sub`) the new token is for. */
  async reissue(oldToken: unknown): Promise<{ token: string; sub: string }> {
    if (typeof oldToken !== 'string' || oldToken === '' || oldToken.length > 8192) throw new ReauthFailedError()
    let payload: JwtPayload
    try {
      payload = this.#verify(oldToken, true)
    } catch (error) {
      if (error instanceof JwtError) throw new ReauthFailedError()
      throw error
    }
    const oldDigest = sha256Hex(oldToken)
    const { token } = this.codec.sign(payload.sub)
    const updated = await this.model
      .query()
      .where(this.primaryKey, payload.sub)
      .where(this.column, oldDigest)
      .update({ [this.column]: sha256Hex(token) })
    if (updated !== 1) throw new ReauthFailedError()
    return { token, sub: payload.sub }
  }

  /** The user whose token column holds `digest`, or null. */
  async findByDigest(digest: string): Promise<any | null> {
    return this.model.findBy(this.column, digest)
  }

  findById(id: string): Promise<any | null> {
    return Promise.resolve(this.model.find(id))
  }
}
