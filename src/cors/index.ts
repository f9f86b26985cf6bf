/**
 * @module cors
 * Cross-Origin Resource Sharing: `config/cors.ts`, `CORS_ORIGINS`, the middleware and its provider.
 */
export { CorsMiddleware, CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from './cors-middleware.js'
export { CorsProvider } from './cors-provider.js'
export { resolveCorsConfig, serialisedOrigin, type CorsConfig } from './cors-config.js'
