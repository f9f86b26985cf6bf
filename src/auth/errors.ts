/**
 * @module auth/errors
 * The auth feature's errors.
 */
import { HttpError } from '../http/http-error.js'
import { FrameworkError } from '../foundation/framework-error.js'

export class AuthenticationError extends HttpError {
  constructor(message = 'Unauthenticated.') {
    super(401, 'E_UNAUTHORIZED', message)
  }
}

export class InvalidCredentialsError extends HttpError {
  constructor(message = 'The email or password is incorrect.') {
    super(401, 'E_INVALID_CREDENTIALS', message)
  }
}

export class AuthConfigError extends FrameworkError {
  constructor(message: string) {
    super('E_AUTH_CONFIG', message)
  }
}
