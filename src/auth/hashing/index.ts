/**
 * @module auth/hashing
 * Password hashing (argon2id, bcrypt verification) and the policy new passwords must satisfy.
 */
export { Hasher, ARGON2ID_DEFAULTS, DEFAULT_MAX_WAIT_MS, type HasherOptions, type Argon2Cost, type CheckOptions } from './hasher.js'
export { HashAbortedError } from './hash-pool.js'
export { PasswordPolicy, PASSWORD_MESSAGES } from './password-policy.js'
export { PasswordTooLongError } from './errors.js'
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordLength, isPasswordTooLong } from './password-length.js'
export { commonPasswords, isCommonPassword } from './common-passwords.js'
