/**
 * @module auth/email
 * The one normalisation of an e-mail address, as auth uses it: `normalizeEmail` lives in
 * `support/normalize-email.ts` (the database's `whereEmail` compares with it too).
 */
export { normalizeEmail } from '../support/normalize-email.js'
