/**
 * @module api/errors
 * The JWT API's HTTP errors, with the exact bodies of SPEC §6. The 401s carry
 * `WWW-Authenticate: Bearer`.
 */
import { HttpError } from '../http/http-error.js'
import { FrameworkError } from '../foundation/framework-error.js'

const BEARER = { 'WWW-Authenticate': 'Bearer' }

export class TokenMissingError extends HttpError {
  constructor() {
    super(401, 'E_TOKEN_MISSING', 'Authentication token missing', { headers: BEARER })
  }
}

export class TokenInvalidError extends HttpError {
  constructor(options: { cause?: unknown } = {}) {
    super(401, 'E_TOKEN_INVALID', 'Token invalid. Try reauthenticating.', { headers: BEARER, cause: options.cause })
  }
}

export class ApiCredentialsError extends HttpError {
  constructor() {
    super(401, 'E_INVALID_CREDENTIALS', 'Could not find username or password')
  }
}

export class ReauthFailedError extends HttpError {
  constructor() {
    super(401, 'E_REAUTH_FAILED', 'Could not reauthenticate based on given token.')
  }
}

export class ApiConfigError extends FrameworkError {
  constructor(message: string) {
    super('E_API_CONFIG', message)
  }
}
