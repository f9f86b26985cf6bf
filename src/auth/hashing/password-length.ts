/**
 * @module auth/hashing/password-length
 * The length rules shared by `PasswordPolicy` (the message a user sees) and `Hasher` (which never
 * spends work on a longer password). Length is counted in Unicode code points, so an emoji or an
 * accented letter written as one character counts once.
 */

export const MIN_PASSWORD_LENGTH = 8
export const MAX_PASSWORD_LENGTH = 1024

/**
 * Number of code points in `password`, counting only up to just past `MAX_PASSWORD_LENGTH`
 * (so a megabyte-long field costs no more than a legal one).
 */
export function passwordLength(password: string): number {
  // A code point takes at most two UTF-16 units, so anything this long is certainly too long.
  if (password.length > 2 * MAX_PASSWORD_LENGTH) return MAX_PASSWORD_LENGTH + 1
  let count = 0
  for (const _ of password) count++
  return count
}

/** `true` when `password` is longer than `MAX_PASSWORD_LENGTH` code points. */
export function isPasswordTooLong(password: string): boolean {
  return passwordLength(password) > MAX_PASSWORD_LENGTH
}
