/**
 * @module api/jwt/digest
 * The digest of an issued JWT, as stored in the model's token column (`api_token`): the JWT
 * itself is never stored, so a leaked row cannot be replayed as a bearer token.
 */
export { sha256Hex } from '../../auth/tokens/sha256-hex.js'
