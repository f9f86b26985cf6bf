/**
 * @module api/jwt/errors
 * Why a token was refused. These are pure-layer errors with a code and no HTTP status: the JWT
 * guard catches every `JwtError` and answers 401 `E_TOKEN_INVALID` with `WWW-Authenticate: Bearer`
 * (the `cause` keeps the detail for logs). Configuration mistakes are `FrameworkError`s instead,
 * thrown once when the codec is built.
 */

/** Base class of every token rejection; `instanceof JwtError` is the one check callers need. */
export class JwtError extends Error {
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = new.target.name
    this.code = code
  }
}

/** Malformed, forged, wrongly signed or carrying unacceptable claims. */
export class JwtInvalidError extends JwtError {
  constructor(message = 'The token is invalid.', options?: { cause?: unknown }) {
    super('E_JWT_INVALID', message, options)
  }
}

/** Correctly signed and well formed, but its `exp` has passed (reauth may still accept it). */
export class JwtExpiredError extends JwtError {
  /** The token's `exp` claim, in seconds since the epoch. */
  readonly expiredAt: number
  constructor(expiredAt: number) {
    super('E_JWT_EXPIRED', `The token expired at ${new Date(expiredAt * 1000).toISOString()}.`)
    this.expiredAt = expiredAt
  }
}

/** Correctly signed, but issued for another `version` than the configured one (or none at all). */
export class JwtVersionMismatchError extends JwtError {
  constructor(expected: number | null, actual: unknown) {
    super(
      'E_JWT_VERSION_MISMATCH',
      `The token version ${actual === undefined ? '(missing)' : JSON.stringify(actual)} is not the configured version ${JSON.stringify(expected)}.`,
    )
  }
}

/** Well formed and correctly signed, but no longer the token stored for its user (replaced or revoked). */
export class JwtRevokedError extends JwtError {
  constructor() {
    super('E_JWT_REVOKED', 'The token is no longer the current one for its user.')
  }
}
