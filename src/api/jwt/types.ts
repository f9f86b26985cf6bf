/**
 * @module api/jwt/types
 * The shapes the JWT codec reads (the `jwt` driver of `config/api.ts`) and produces.
 */

/** The HMAC algorithms: one shared secret signs and verifies (the default, `HS512`). */
export type HmacAlgorithm = 'HS256' | 'HS384' | 'HS512'

/** The asymmetric algorithms: a private key signs, its public key (published as a JWK) verifies. */
export type AsymmetricAlgorithm = 'EdDSA' | 'ES256' | 'RS256'

/** Every algorithm Trowel signs and verifies with; a codec accepts exactly one of them. */
export type JwtAlgorithm = HmacAlgorithm | AsymmetricAlgorithm

/**
 * The `jwt` entry of `DRIVERS` in `config/api.ts`. Other keys of that entry (`model`,
 * `authenticates`) belong to the guard and are ignored here.
 */
export interface JwtCodecConfig {
  /** `'HS512'` as generated; `'HS256'`, `'HS384'`, `'EdDSA'`, `'ES256'` and `'RS256'` also work. */
  algorithm: string
  /** HMAC algorithms: `env('JWT_SECRET')`, at least 32 bytes; its UTF-8 bytes are the HMAC key. */
  secret?: string | null | undefined
  /**
   * Asymmetric algorithms: `env('JWT_PRIVATE_KEY')`, a PEM private key of the algorithm's type
   * (Ed25519, P-256, RSA ≥ 2048 bits). Literal `\n` sequences are read as newlines.
   */
  privateKey?: string | null | undefined
  /**
   * Asymmetric algorithms, instead of `privateKey`: a PEM public (or private) key that only
   * verifies; `sign()` then throws. Used for `previous_keys`.
   */
  verifyKey?: string | null | undefined
  /** Lifetime in minutes (fractions allowed); `null` means tokens never expire. */
  expires?: number | null
  /** Written to every token; a token carrying any other value (or none) is refused. */
  version?: number | null
  /** Clock skew tolerated on `iat`, `nbf` and `exp`, in seconds. Default 0. */
  leeway?: number
}

/** Framework-internal knobs, mainly for tests and benchmarks. */
export interface JwtCodecOptions {
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number
  /** Tokens kept in the codec's accepted-token cache and in fast-jwt's LRU cache. Default 1000; 0 disables both. */
  cacheSize?: number
}

/** The claims of a token this codec issued and accepted. */
export interface JwtPayload {
  /** The user's primary key, as a string. */
  sub: string
  /** Issued at, seconds since the epoch. */
  iat: number
  /** Random token id (base64url, 128 bits). */
  jti?: string
  /** The configured version at issue time (`null` when unset). */
  version: number | null
  /** Expiry, seconds since the epoch; absent when `expires` is `null`. */
  exp?: number
  /** Not before, seconds since the epoch. Trowel never sets it but honours it. */
  nbf?: number
  [claim: string]: unknown
}

/** What `JwtCodec.sign` returns. */
export interface SignedJwt {
  token: string
  payload: JwtPayload & { jti: string }
}

export interface JwtVerifyOptions {
  /** Accept a token whose `exp` has passed (reauth). Everything else is still checked. */
  ignoreExpiration?: boolean
}
