/**
 * @module trowel/api
 * The optional JWT API: `ApiProvider`, `Api.routes()`, `AuthenticatesTokens`, the `jwt` guard,
 * the `api` and `guard` stacks' middleware, and the contract and list of the API's pieces.
 */
export { Api, type ApiRoutesOptions } from './api.js'
export { apiFeatures, defineApiFeature, type ApiFeatureModule, type ApiOptionsContext } from './features/index.js'
export { ApiProvider } from './api-provider.js'
export { AuthenticatesTokens } from './authenticates-tokens.js'
export { JWTAuthenticationMiddleware } from './middleware/jwt-authentication-middleware.js'
export { LoadUserMiddleware } from './middleware/load-user-middleware.js'
export { GuardMiddleware } from './middleware/guard-middleware.js'
export { AbilityMiddleware } from './middleware/ability-middleware.js'
export * from './personal-tokens/index.js'
export * from './guards/jwt/index.js'
export { JwtService, type JwtDriverConfig } from './jwt-service.js'
export { TokenMissingError, TokenInvalidError, ApiCredentialsError, ReauthFailedError, TokenReusedError, ApiConfigError } from './errors.js'
export * from './jwt/index.js'
