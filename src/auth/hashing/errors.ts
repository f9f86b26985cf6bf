/**
 * @module auth/hashing/errors
 * Errors of the hashing layer. They carry a code and no HTTP status: the password policy refuses
 * over-long passwords with a field message long before a hash is attempted, so reaching one of
 * these is a programming mistake (a 500 if it ever escapes).
 */

/** `Hasher.hash` was given a password over `MAX_PASSWORD_LENGTH` characters. */
export class PasswordTooLongError extends Error {
  readonly code = 'E_PASSWORD_TOO_LONG'
  constructor(maxLength: number) {
    super(`Passwords longer than ${maxLength} characters are not hashed; check them with PasswordPolicy first.`)
    this.name = 'PasswordTooLongError'
  }
}
