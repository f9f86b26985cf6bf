/**
 * @module auth/hashing/password-policy
 * What a new password must satisfy (NIST SP 800-63B): 8 to 1024 characters, no composition rules,
 * and not one of the common passwords attackers try first.
 */
import { isCommonPassword } from './common-passwords.js'
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordLength } from './password-length.js'

export const PASSWORD_MESSAGES = Object.freeze({
  tooShort: `The password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
  tooLong: `The password must not be longer than ${MAX_PASSWORD_LENGTH} characters.`,
  tooCommon: 'This password is too common. Please choose another one.',
})

/**
 * Checks a proposed password (registration, reset). Length is counted in Unicode characters;
 * the common-password comparison ignores case.
 *
 * @example
 * const error = new PasswordPolicy().check(input.password)
 * if (error) errors.password = [error]
 */
export class PasswordPolicy {
  /** An error message for the user, or `null` when the password is acceptable. */
  check(password: string): string | null {
    if (typeof password !== 'string') return PASSWORD_MESSAGES.tooShort
    const length = passwordLength(password)
    if (length < MIN_PASSWORD_LENGTH) return PASSWORD_MESSAGES.tooShort
    if (length > MAX_PASSWORD_LENGTH) return PASSWORD_MESSAGES.tooLong
    if (isCommonPassword(password)) return PASSWORD_MESSAGES.tooCommon
    return null
  }
}
