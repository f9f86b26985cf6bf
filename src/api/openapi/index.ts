/**
 * @module api/openapi
 * The OpenAPI 3.1 document of an app's API: `node craft openapi` writes it, `GET
 * /api/openapi.json` serves it when `DRIVERS.jwt.openapi` is true.
 */
export { buildOpenApiDocument, openApiPaths, type OpenApiDocument, type OpenApiOptions } from './document.js'
export { appOpenApiDocument, openApiEnabled, openapiRoute } from './openapi-route.js'
export { openApiOptionsFor } from './app-options.js'
export { addWebOperations, SESSION_SCHEME } from './web-operations.js'
export { JWT_SCHEME, PERSONAL_TOKEN_SCHEME } from './components.js'
