/**
 * @module api/jwt
 * Pure JWT code for the API guard: the codec, its errors, and the digest stored in the token
 * column. No HTTP here; see the JWT guard for the 401 answers.
 */
export { JwtCodec } from './jwt-codec.js'
export { JwtError, JwtExpiredError, JwtInvalidError, JwtRevokedError, JwtVersionMismatchError } from './errors.js'
export { sha256Hex } from './digest.js'
export { MIN_SECRET_BYTES } from './resolve-jwt-config.js'
export { jwkThumbprint, type PublicJwk } from './keys.js'
export type { AsymmetricAlgorithm, HmacAlgorithm, JwtAlgorithm, JwtCodecConfig, JwtCodecOptions, JwtPayload, JwtVerifyOptions, SignedJwt } from './types.js'
