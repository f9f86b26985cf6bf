/**
 * @module api/jwt/jwt-codec
 * Signs and verifies Trowel's API tokens: JWTs with `sub`, `iat`, `jti`, `version` and (when
 * `expires` is set) `exp`, signed with HMAC (`HS256/384/512`, the default) or with a private key
 * (`EdDSA`, `ES256`, `RS256`; the header then carries the key's `kid`). Pure code, no HTTP: the JWT guard turns every `JwtError` into a
 * 401. Signatures are made and checked by fast-jwt (timing-safe, with an LRU cache of verified
 * tokens keyed by a hash of the whole token); this class adds what RFC 7515/7519 leave to the
 * application: exactly three canonical base64url segments, strict UTF-8 JSON objects, a pinned
 * algorithm, `typ` and `kid`, and the claim rules of `check-claims.ts`. The algorithm is pinned
 * twice (fast-jwt's allowlist of one, then the strictly decoded header), so neither `none` nor an
 * HMAC token "signed" with a published public key is ever accepted by an asymmetric codec.
 *
 * In front of all that sits a cache of the tokens this codec has accepted, keyed by the exact
 * token string (another spelling of the same token is a different key, so it goes through every
 * check), bounded (`cacheSize`, oldest out first), each entry dropped once its `exp` (plus the
 * leeway) has passed. A hit skips only what cannot change for the same string and key (structure,
 * decoding, signature); the claim rules still run on every call. A codec's key and `version` never
 * change (a new config is a new codec with an empty cache), and the epoch check
 * (`revocation: 'epoch'`) runs after the codec on every request.
 */
import { randomBytes } from 'node:crypto'
import { createSigner, createVerifier } from 'fast-jwt'
import { FrameworkError } from '../../foundation/framework-error.js'
import { isCanonicalBase64url } from './base64url.js'
import { checkClaims } from './check-claims.js'
import { decodeSegment } from './decode-segment.js'
import { JwtError, JwtInvalidError } from './errors.js'
import { resolveJwtConfig } from './resolve-jwt-config.js'
import type { PublicJwk } from './keys.js'
import type { JwtAlgorithm, JwtCodecConfig, JwtCodecOptions, JwtPayload, JwtVerifyOptions, SignedJwt } from './types.js'

/** Longer strings are refused before any decoding; Trowel's tokens are about 250 characters. */
const MAX_TOKEN_LENGTH = 8192

/** Length of the base64url signature segment of the HMACs (32, 48 and 64 bytes). */
const HMAC_SIGNATURE_LENGTH: Record<string, number> = { HS256: 43, HS384: 64, HS512: 86 }

/** What fast-jwt's verifier returns with `complete: true` (cached and returned as one object). */
interface DecodedToken {
  header: Record<string, unknown>
  payload: Record<string, unknown>
}

/** An accepted token: its (frozen) claims and when the entry stops being usable, in ms. */
interface AcceptedToken {
  payload: Record<string, unknown>
  diesAt: number
}

/** Cached results are shared between calls, so nothing handed out may be able to change them. */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const child of Object.values(value)) deepFreeze(child)
}

/**
 * One codec per configured driver, built at boot: the constructor validates the config once and
 * throws a `FrameworkError` naming `JWT_SECRET` or `config/api.ts` when it is unusable.
 *
 * @example
 * const codec = new JwtCodec({ algorithm: 'HS512', secret: env('JWT_SECRET'), expires: 60, version: null })
 * const { token } = codec.sign(user.id)
 * const payload = codec.verify(token) // throws JwtInvalidError | JwtExpiredError | JwtVersionMismatchError
 */
export class JwtCodec {
  readonly algorithm: JwtAlgorithm
  /** Token lifetime in seconds (`round(expires × 60)`), or `null` when tokens never expire. */
  readonly lifetimeSeconds: number | null
  readonly version: number | null
  readonly leewaySeconds: number
  /** The key id written in every token header (RFC 7638 thumbprint); `null` for HMAC. */
  readonly kid: string | null
  /** The public key as a JWK (with `kid`, `alg`, `use`) for the JWK Set; `null` for HMAC. */
  readonly publicJwk: Readonly<PublicJwk> | null
  /** False for a codec built from a public key only (a previous key): it verifies, never signs. */
  readonly canSign: boolean

  readonly #signatureLength: number
  readonly #now: () => number
  readonly #sign: (payload: Record<string, unknown>) => string
  readonly #verify: (token: string) => DecodedToken
  /** Decoded tokens (fast-jwt's cached objects) that already passed the strict structural checks. */
  readonly #checked = new WeakSet<DecodedToken>()
  /** Accepted tokens by their exact string; null when `cacheSize` is 0. */
  readonly #accepted: Map<string, AcceptedToken> | null
  readonly #acceptedMax: number

  constructor(config: JwtCodecConfig, options: JwtCodecOptions = {}) {
    const resolved = resolveJwtConfig(config)
    this.algorithm = resolved.algorithm
    this.lifetimeSeconds = resolved.lifetimeSeconds
    this.version = resolved.version
    this.leewaySeconds = resolved.leewaySeconds
    const pair = resolved.asymmetric
    this.kid = pair ? pair.kid : null
    this.publicJwk = pair ? Object.freeze({ ...pair.jwk }) : null
    this.canSign = pair ? pair.privatePem !== null : true
    this.#signatureLength = pair ? pair.signatureLength : HMAC_SIGNATURE_LENGTH[this.algorithm]!
    this.#now = options.now ?? Date.now
    const cacheSize = options.cacheSize ?? 1000
    this.#acceptedMax = cacheSize
    this.#accepted = cacheSize > 0 ? new Map() : null
    try {
      if (pair && pair.privatePem === null) {
        this.#sign = () => {
          throw new FrameworkError('E_JWT_VERIFY_ONLY', 'This JWT key only verifies tokens (it is a previous key); it cannot sign.')
        }
      } else {
        this.#sign = createSigner({ key: pair ? pair.privatePem! : resolved.key!, algorithm: this.algorithm, kid: pair?.kid })
      }
      // Time claims are checked by checkClaims (one clock, deterministic error order), so
      // fast-jwt only decodes, pins the algorithm, checks the signature and `crit`, and caches.
      // An asymmetric codec verifies with the public key only.
      this.#verify = createVerifier({
        key: pair ? pair.publicPem : resolved.key!,
        algorithms: [this.algorithm],
        complete: true,
        cache: cacheSize,
        ignoreExpiration: true,
        ignoreNotBefore: true,
      }) as (token: string) => DecodedToken
    } catch (cause) {
      throw new FrameworkError('E_JWT_CONFIG_INVALID', `config/api.ts: the jwt driver could not be set up: ${(cause as Error).message}`, { cause })
    }
  }

  /**
   * Issues a token for the user whose primary key is `sub`. Returns the compact JWT and the
   * claims it carries.
   */
  sign(sub: string | number, claims?: Record<string, unknown>): SignedJwt {
    const subject = typeof sub === 'number' && Number.isFinite(sub) ? String(sub) : sub
    if (typeof subject !== 'string' || subject === '') {
      throw new FrameworkError('E_JWT_INVALID_SUBJECT', `A JWT subject must be a non-empty string or a finite number, got ${String(sub)}.`)
    }
    const iat = Math.floor(this.#now() / 1000)
    const payload: SignedJwt['payload'] = {
      sub: subject,
      iat,
      jti: randomBytes(16).toString('base64url'),
      version: this.version,
    }
    if (this.lifetimeSeconds !== null) payload.exp = iat + this.lifetimeSeconds
    // Extra claims (`uep` with `revocation: 'epoch'`) never replace the registered ones above.
    if (claims) for (const [name, value] of Object.entries(claims)) if (!Object.hasOwn(payload, name)) payload[name] = value
    return { token: this.#sign(payload), payload }
  }

  /**
   * Returns the claims of `token` when it is one this codec would have issued and is still
   * valid; otherwise throws `JwtInvalidError`, `JwtVersionMismatchError` or (only when every
   * other check passed) `JwtExpiredError`. `ignoreExpiration` is for reauth.
   */
  verify(token: string, options: JwtVerifyOptions = {}): JwtPayload {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) {
      throw new JwtInvalidError('The token is not a string of acceptable length.')
    }
    const nowMs = this.#now()
    const rules = { nowMs, leewaySeconds: this.leewaySeconds, version: this.version, ignoreExpiration: options.ignoreExpiration === true }
    const accepted = this.#accepted?.get(token)
    if (accepted !== undefined) {
      if (nowMs < accepted.diesAt) return checkClaims(accepted.payload, rules)
      this.#accepted!.delete(token)
    }
    const segments = token.split('.')
    if (segments.length !== 3) {
      throw new JwtInvalidError('The token must have exactly three segments.')
    }
    const [header, payload, signature] = segments as [string, string, string]
    if (signature.length !== this.#signatureLength || !isCanonicalBase64url(signature)) {
      throw new JwtInvalidError('The token signature is not a canonical base64url signature of the right length.')
    }
    if (header === '' || payload === '' || !isCanonicalBase64url(header) || !isCanonicalBase64url(payload)) {
      throw new JwtInvalidError('The token header or payload is not canonical base64url.')
    }

    let decoded: DecodedToken
    try {
      decoded = this.#verify(token)
    } catch (cause) {
      if (cause instanceof JwtError) throw cause
      throw new JwtInvalidError((cause as Error).message || 'The token is invalid.', { cause })
    }

    if (!this.#checked.has(decoded)) {
      // fast-jwt decodes leniently (invalid UTF-8 becomes U+FFFD). Re-decode strictly once per
      // distinct token; later cache hits return this same object and skip the work.
      const strictHeader = decodeSegment(header, 'header')
      decodeSegment(payload, 'payload')
      if (strictHeader.alg !== this.algorithm) {
        throw new JwtInvalidError('The token algorithm is not the configured one.')
      }
      if (strictHeader.typ !== undefined && strictHeader.typ !== 'JWT') {
        throw new JwtInvalidError('The token type (typ) is not JWT.')
      }
      // Asymmetric tokens name their key (a signature checked with this key but another kid is
      // not one Trowel made). HMAC tokens carry none, and a kid on them selects nothing.
      if (this.kid !== null && strictHeader.kid !== this.kid) {
        throw new JwtInvalidError('The token key id (kid) is not this key\'s.')
      }
      deepFreeze(decoded)
      this.#checked.add(decoded)
    }

    const claims = checkClaims(decoded.payload, rules)
    if (this.#accepted !== null) this.#remember(token, decoded.payload, nowMs)
    return claims
  }

  /** Keeps an accepted token until its expiry; an expired one (accepted by reauth) is not kept. */
  #remember(token: string, payload: Record<string, unknown>, nowMs: number): void {
    const exp = payload.exp
    const diesAt = typeof exp === 'number' ? exp * 1000 + this.leewaySeconds * 1000 : Infinity
    if (!(nowMs < diesAt)) return
    const cache = this.#accepted!
    if (cache.size >= this.#acceptedMax) cache.delete(cache.keys().next().value!)
    cache.set(token, { payload, diesAt })
  }
}
