/**
 * @module support/normalize-email
 * The one normalisation of an e-mail address (or any login identifier): trimmed, Unicode NFC,
 * lower-cased with JavaScript's `toLowerCase`. Registration stores this value, the account
 * look-up compares with it, and the login budgets are keyed by it, so every spelling that can
 * reach an account (`ALICE@x`, ` alice@x `, an accented letter typed precomposed or as letter +
 * combining accent) counts against that account's budgets.
 */

/**
 * `value` trimmed, NFC-normalised and lower-cased; idempotent. A non-string gives `''`.
 *
 * @example
 * normalizeEmail('  Ada@Example.COM ') // 'ada@example.com'
 */
export function normalizeEmail(value: unknown): string {
  if (typeof value !== 'string') return ''
  // NFC again after lower-casing: a few capitals lower-case to a letter plus a combining mark
  // (e.g. U+0130) which composition may join; this keeps normalizeEmail(normalizeEmail(x)) stable.
  return value.trim().normalize('NFC').toLowerCase().normalize('NFC')
}
