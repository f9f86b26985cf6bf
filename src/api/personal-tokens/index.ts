/**
 * @module api/personal-tokens
 * Personal access tokens: `trw_<id>_<secret><checksum>` Bearer tokens for scripts and CI, stored
 * as their SHA-256, with abilities checked by the `ability:<name>` middleware.
 */
export { TOKEN_PREFIX, TOKEN_PATTERN, SECRET_LENGTH, CHECKSUM_LENGTH, BASE62, crc32, base62, checksumOf, formatToken, parseToken, looksPersonal, randomSecret } from './token-format.js'
export { ALL_ABILITIES, ABILITY_PATTERN, InsufficientScopeError, can, firstMissing, normalizeAbilities } from './abilities.js'
export {
  PersonalTokenRepository,
  PERSONAL_TOKENS_TABLE,
  TOUCH_EVERY_MS,
  type PersonalToken,
  type NewPersonalToken,
  type CreateTokenOptions,
} from './repository.js'
export { issuePersonalToken } from './issue.js'
export { PersonalTokenForms } from './token-forms.js'
