/**
 * @module auth/errors
 * The auth feature's errors. Every authentication failure is an `UnauthorizedError` (401);
 * `AuthenticationError` is the same class under the name older code imports.
 */
import { UnauthorizedError } from '../http/errors.js'
import { HttpError } from '../http/http-error.js'
import { FrameworkError } from '../foundation/framework-error.js'

export { UnauthorizedError, UnauthorizedError as AuthenticationError }

/** Wrong identifier or password on a login that answers JSON. */
export class InvalidCredentialsError extends UnauthorizedError {
  constructor(message = 'The email or password is incorrect.') {
    super(message, { code: 'E_INVALID_CREDENTIALS' })
  }
}

/**
 * A correct password that stopped working: the owner used "This wasn't me", and the password
 * works again only once the reset link mailed then (or a new one) has set a new password.
 */
export class PasswordResetRequiredError extends UnauthorizedError {
  constructor(message = 'This password no longer works: use the password reset link we e-mailed to the account to choose a new one.') {
    super(message, { code: 'E_PASSWORD_RESET_REQUIRED' })
  }
}

/** A mistake in `config/auth.ts` or in how auth is used (an unknown guard, a missing model). */
export class AuthConfigError extends FrameworkError {
  constructor(message: string) {
    super('E_AUTH_CONFIG', message)
  }
}

/** A route behind `verified` was asked for as JSON by a user whose address is not verified yet. */
export class EmailNotVerifiedError extends HttpError {
  constructor(message = 'Your email address is not verified.') {
    super(403, 'E_EMAIL_NOT_VERIFIED', message)
  }
}

/** A route behind `password.confirm` was asked for as JSON without a recent password confirmation. */
export class PasswordConfirmationRequiredError extends HttpError {
  constructor(message = 'Please confirm your password first.') {
    super(423, 'E_PASSWORD_CONFIRMATION_REQUIRED', message)
  }
}
