/**
 * @module api/jwt-service
 * Issues, verifies and re-issues the API's JWTs (`DRIVERS.jwt` of `config/api.ts`), storing
 * each user's current token digest through a JwtUserProvider (the token column by default).
 * Failures are `JwtError`s, never HTTP errors: the JWT guard and the token routes decide the
 * answer.
 * - `issue` stores the SHA-256 hex digest of the new JWT (replacing any earlier one); the token
 *   carries `amr`, how its login was made, which `reissue` keeps.
 * - `verify` checks signature, algorithm, expiry and version, with the current secret (or key)
 *   and then each previous one; no query.
 * - `jwks` is the JWK Set of the public keys (current first, then `previous_keys`) for
 *   `GET /.well-known/jwks.json`; empty with an HMAC algorithm.
 * - `reissue` ignores expiry only; the stored digest must match and is replaced atomically, so of
 *   N concurrent reissues with one token exactly one wins, and the old token never works again.
 */
import type { DatabaseManager } from '../database/database-manager.js'
import { JwtCodec, JwtError, JwtInvalidError, JwtRevokedError, sha256Hex, type JwtPayload } from './jwt/index.js'
import { loadAsymmetricKey, type PublicJwk } from './jwt/keys.js'
import { isAsymmetricAlgorithm } from './jwt/resolve-jwt-config.js'
import { FrameworkError } from '../foundation/framework-error.js'
import type { AuthUser } from '../auth/types.js'
import { ModelJwtUserProvider } from './guards/jwt/user-provider.js'
import type { JwtUserProvider } from './guards/jwt/types.js'
import { EPOCH_CLAIM, type TokenEpochs } from './revocation/token-epochs.js'
import { TokenFamilies, type FamilyMeta, type FamilyOptions, type ReuseDetail } from './families/token-families.js'

export type { VerifiedToken } from './guards/jwt/types.js'

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
  /**
   * Asymmetric algorithms: the PEM private key that signs (`private_key: env('JWT_PRIVATE_KEY')`
   * in config/api.ts).
   */
  privateKey?: string | null
  /**
   * PEM public (or private) keys that still verify (never sign), so JWT_PRIVATE_KEY can be rotated
   * without logging every API client out; each is published in the JWK Set. `previous_keys` in
   * config/api.ts, else JWT_PREVIOUS_KEYS (comma-separated). A key's algorithm is its type's
   * (Ed25519: EdDSA, P-256: ES256, RSA: RS256), so a rotation may also change the algorithm.
   */
  previousKeys?: string[]
  /**
   * `revocation: 'epoch'`: every token carries its user's `token_epoch` (`uep`); raising it
   * refuses all their tokens, checked against the epochs this process keeps in memory (no query).
   */
  epochs?: TokenEpochs | null
  /**
   * `store: 'table'`: per-device token families in `api_tokens` (see families/token-families)
   * instead of the user's token column.
   */
  families?: Omit<FamilyOptions, 'sign' | 'database'> | null
  /** The app's database manager (ApiProvider passes it); else the model's. */
  database?: () => DatabaseManager
}

/** The claim saying how the token's login was made (RFC 8176): `['pwd']`, `['pwd', 'otp']`, `['webauthn']`. */
export const AMR_CLAIM = 'amr'
const PASSWORD_AMR: readonly string[] = ['pwd']

/** The longest token `reissue` looks at. */
const MAX_TOKEN_LENGTH = 8192

export class JwtService<User extends AuthUser = any> {
  readonly codec: JwtCodec
  /** Codecs for previous secrets: they verify tokens signed before a rotation. */
  readonly previous: JwtCodec[]
  /** With `authenticates: true`, a request's token must also be its user's stored one. */
  readonly authenticates: boolean
  readonly provider: JwtUserProvider<User>
  /** With `revocation: 'epoch'`: the users' epochs known to this process; else null. */
  readonly epochs: TokenEpochs | null
  /** With `store: 'table'`: the token families; else null (the token column). */
  readonly families: TokenFamilies | null

  constructor(config: JwtDriverConfig, provider?: JwtUserProvider<User>) {
    const codecConfig = { algorithm: config.algorithm, expires: config.expires, version: config.version, leeway: config.leeway }
    this.codec = new JwtCodec({ ...codecConfig, secret: config.secret, privateKey: config.privateKey })
    const asymmetric = isAsymmetricAlgorithm(this.codec.algorithm)
    const previousSecrets = config.previousSecrets ?? []
    if (asymmetric && previousSecrets.length > 0) {
      throw new FrameworkError(
        'E_JWT_CONFIG_INVALID',
        `config/api.ts: DRIVERS.jwt.previous_secrets are HMAC secrets and do not apply to ${this.codec.algorithm}; ` +
          'list old public keys in previous_keys instead.',
      )
    }
    this.previous = previousSecrets.map((secret) => new JwtCodec({ ...codecConfig, secret }))
    const kids = new Set(this.codec.kid ? [this.codec.kid] : [])
    for (const [i, pem] of (config.previousKeys ?? []).entries()) {
      // The key's own algorithm, not the configured one: an algorithm is pinned per key.
      const where = `DRIVERS.jwt.previous_keys[${i}] (or JWT_PREVIOUS_KEYS)`
      const { algorithm, kid } = loadAsymmetricKey(pem, { where, allowPublic: true })
      if (kids.has(kid)) continue // the current key, or listed twice
      kids.add(kid)
      this.previous.push(new JwtCodec({ ...codecConfig, algorithm, verifyKey: pem }))
    }
    this.authenticates = config.authenticates === true
    this.epochs = config.epochs ?? null
    this.families = config.families ? new TokenFamilies({ ...config.families, database: config.database ?? (() => (config.model as { database(): DatabaseManager }).database()), sign: (sub, claims) => this.codec.sign(sub, claims).token }) : null
    this.provider = provider ?? (new ModelJwtUserProvider(config.model) as unknown as JwtUserProvider<User>)
  }

  /**
   * The JWK Set served at `/.well-known/jwks.json`: the public key that signs now, then every
   * previous key. No keys with an HMAC algorithm (the secret is never published).
   */
  jwks(): { keys: PublicJwk[] } {
    const keys = [this.codec, ...this.previous].map((codec) => codec.publicJwk).filter((jwk): jwk is PublicJwk => jwk !== null)
    return { keys: keys.map((jwk) => ({ ...jwk })) }
  }

  /**
   * Signs a token for `user`, stores its digest and returns the JWT. `amr` is how the login was
   * made (RFC 8176; `['pwd']` unless told: a password, the token route's login).
   */
  async issue(user: User, meta?: FamilyMeta, amr: readonly string[] = PASSWORD_AMR): Promise<string> {
    const claims: Record<string, unknown> = { [AMR_CLAIM]: [...amr] }
    if (this.epochs) claims[EPOCH_CLAIM] = await this.epochs.current(user.getKey())
    // `store: 'table'`: a new family (one per device) instead of the token column.
    if (this.families) return (await this.families.start(String(user.getKey()), meta, claims)).token
    const { token } = this.codec.sign(String(user.getKey()), claims)
    const digest = sha256Hex(token)
    await this.provider.storeDigest(user, digest)
    return token
  }

  /** The payload of a valid token; throws a JwtError. Tries each previous secret on a bad signature. */
  verify(token: string, options: { ignoreExpiration?: boolean } = {}): JwtPayload {
    const payload = this.#verifySigned(token, options)
    // `revocation: 'epoch'`: a token issued before its user's epoch was raised (or without `uep`,
    // issued before the setting) is refused. From memory: no query.
    if (this.epochs && !this.epochs.accepts(payload.sub, payload[EPOCH_CLAIM])) throw new JwtRevokedError()
    return payload
  }

  #verifySigned(token: string, options: { ignoreExpiration?: boolean }): JwtPayload {
    const ignoreExpiration = options.ignoreExpiration === true
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

  /** Exchanges a (possibly expired) current token for a new one; throws a JwtError. */
  async reissue(oldToken: unknown, meta?: FamilyMeta): Promise<{ token: string; sub: string }> {
    if (typeof oldToken !== 'string' || oldToken === '' || oldToken.length > MAX_TOKEN_LENGTH) throw new JwtInvalidError()
    const payload = this.verify(oldToken, { ignoreExpiration: true })
    // The new token was made by the same login: it keeps the old one's amr.
    const claims: Record<string, unknown> = Array.isArray(payload[AMR_CLAIM]) ? { [AMR_CLAIM]: payload[AMR_CLAIM] } : {}
    if (this.epochs) {
      // The stored epoch, not only the known one: an expired token's raise may be forgotten.
      const epoch = await this.epochs.current(payload.sub)
      if (!this.epochs.accepts(payload.sub, payload[EPOCH_CLAIM]) || (payload[EPOCH_CLAIM] as number) < epoch) throw new JwtRevokedError()
      claims[EPOCH_CLAIM] = epoch
    }
    // `store: 'table'`: rotation within the token's family, with reuse detection.
    if (this.families) {
      try {
        return await this.families.rotate(oldToken, payload, meta, claims)
      } catch (error) {
        // A detected reuse (likely a stolen token): with epochs, every token of the user is refused
        // at once, everywhere, including the family's access tokens that `authenticates: false`
        // would otherwise accept until they expire.
        if (this.epochs && error instanceof JwtError && error.code === 'E_JWT_REUSED' && (error.cause as ReuseDetail | undefined)?.detected) {
          await this.epochs.bump(payload.sub)
        }
        throw error
      }
    }
    const { token } = this.codec.sign(payload.sub, claims)
    if (!(await this.provider.replaceDigest(payload.sub, sha256Hex(oldToken), sha256Hex(token)))) throw new JwtRevokedError()
    return { token, sub: payload.sub }
  }

  /**
   * Revokes `token` when it is its user's current one (expired or not: a current token can still
   * be reissued): the stored digest is cleared, atomically, only if it is still that token's.
   * Returns the user's id, or null when the token is not a valid, current token (nothing changes).
   */
  async revokeToken(token: unknown): Promise<string | null> {
    if (typeof token !== 'string' || token === '' || token.length > MAX_TOKEN_LENGTH) return null
    let payload: JwtPayload
    try {
      payload = this.verify(token, { ignoreExpiration: true })
    } catch (error) {
      if (error instanceof JwtError) return null
      throw error
    }
    if (this.families) return this.families.endByToken(token, payload)
    const digest = sha256Hex(token)
    return (await this.provider.clearDigestIf(payload.sub, digest)) ? payload.sub : null
  }

  /** Clears `user`'s current token: it can be neither used (with `authenticates`) nor reissued. */
  async revoke(user: User): Promise<void> {
    await this.provider.storeDigest(user, null)
  }
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    'api.jwt': JwtService
  }
}
