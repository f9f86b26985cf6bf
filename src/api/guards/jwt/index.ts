/**
 * @module api/guards/jwt
 * The `jwt` guard, its user provider and types.
 */
export { JwtGuard } from './guard.js'
export { jwtGuardOf, JWT_GUARD } from './jwt-guard-of.js'
export { ModelJwtUserProvider } from './user-provider.js'
export { VerifiedBearer } from './verified-bearer.js'
export { bearerToken } from './bearer-token.js'
export type { JwtUserProvider, TokenRecord, VerifiedToken, JwtGuardDependencies } from './types.js'
