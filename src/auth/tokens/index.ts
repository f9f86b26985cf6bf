/**
 * @module auth/tokens
 * Random opaque tokens, the digest they are stored under, and constant-time comparison.
 */
export { randomToken } from '../../support/random-token.js'
export { sha256Hex } from './sha256-hex.js'
export { timingSafeEqualString } from './timing-safe-equal-string.js'
