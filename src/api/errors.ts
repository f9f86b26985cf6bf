/**
 * @module api/errors
 * The JWT API's HTTP errors, with the exact bodies the token routes promise. The 401s of the
 * `api` stack carry `WWW-Authenticate: Bearer`.
 */
import { UnauthorizedError } from '../http/errors.js'
import { InvalidCredentialsError } from '../auth/errors.js'
import { FrameworkError } from '../foundation/framework-error.js'

const BEARER = { 'WWW-Authenticate': 'Bearer' }

export class TokenMissingError extends UnauthorizedError {
  constructor() {
    super('Authentication token missing', { code: 'E_TOKEN_MISSING', headers: BEARER })
  }
}

export class TokenInvalidError extends UnauthorizedError {
  constructor(options: { cause?: unknown } = {}) {
    super('Token invalid. Try reauthenticating.', { code: 'E_TOKEN_INVALID', headers: BEARER, cause: options.cause })
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

export class ApiConfigError extends FrameworkError {
  constructor(message: string) {
    super('E_API_CONFIG', message)
  }
}
