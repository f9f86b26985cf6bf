/**
 * @module api/errors
 * The JWT API's HTTP errors, with the exact bodies the token routes promise. The 401s of the
 * `api` stack carry RFC 6750's `WWW-Authenticate`: `Bearer realm="api"` when no token came,
 * `Bearer realm="api", error="invalid_token"` when the one that came is refused.
 */
import { UnauthorizedError } from '../http/errors.js'
import { InvalidCredentialsError } from '../auth/errors.js'
import { FrameworkError } from '../foundation/framework-error.js'

/** No credentials: RFC 6750 §3.1 says to name no error code. */
const BEARER_MISSING = { 'WWW-Authenticate': 'Bearer realm="api"' }
const BEARER_INVALID = { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token"' }

export class TokenMissingError extends UnauthorizedError {
  constructor() {
    super('Authentication token missing', { code: 'E_TOKEN_MISSING', headers: BEARER_MISSING })
  }
}

export class TokenInvalidError extends UnauthorizedError {
  constructor(options: { cause?: unknown } = {}) {
    super('Token invalid. Try reauthenticating.', { code: 'E_TOKEN_INVALID', headers: BEARER_INVALID, cause: options.cause })
  }
}

/** The token route's answer to wrong credentials (same code as the web's, the API's wording). */
export class ApiCredentialsError extends InvalidCredentialsError {
  constructor() {
    super('Could not find username or password')
  }
}

export class ReauthFailedError extends UnauthorizedError {
  constructor(options: { cause?: unknown } = {}) {
    super('Could not reauthenticate based on given token.', { code: 'E_REAUTH_FAILED', cause: options.cause })
  }
}

/**
 * Reauth with a token its family had already replaced, after the reuse window (`store: 'table'`):
 * likely a copied token, so the whole family was revoked; the client must log in again.
 */
export class TokenReusedError extends UnauthorizedError {
  constructor(options: { cause?: unknown } = {}) {
    super('This token was already replaced: every token of its device is revoked. Log in again.', { code: 'E_TOKEN_REUSED', headers: BEARER_INVALID, cause: options.cause })
  }
}

export class ApiConfigError extends FrameworkError {
  constructor(message: string) {
    super('E_API_CONFIG', message)
  }
}
