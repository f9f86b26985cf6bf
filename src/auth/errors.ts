/**
 * @module auth/errors
 * The auth feature's errors. Every authentication failure is an `UnauthorizedError` (401);
 * `AuthenticationError` is the same class under the name older code imports.
 */
import { UnauthorizedError } from '../http/errors.js'
import { FrameworkError } from '../foundation/framework-error.js'

export { UnauthorizedError, UnauthorizedError as AuthenticationError }

/** Wrong identifier or password on a login that answers JSON. */
export class InvalidCredentialsError extends UnauthorizedError {
  constructor(message = 'The email or password is incorrect.') {
    super(message, { code: 'E_INVALID_CREDENTIALS' })
  }
}

/** A mistake in `config/auth.ts` or in how auth is used (an unknown guard, a missing model). */
export class AuthConfigError extends FrameworkError {
  constructor(message: string) {
    super('E_AUTH_CONFIG', message)
  }
}
