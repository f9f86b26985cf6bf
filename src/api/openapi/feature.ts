/**
 * @module api/openapi/feature
 * The OpenAPI document as a piece of the API: `GET /api/openapi.json` (`openapiRoute` of
 * `Api.routes()`), served when `DRIVERS.jwt.openapi` is true (a 404 otherwise, as if absent).
 */
import { defineApiFeature } from '../features/contract.js'
import { ApiConfigError } from '../errors.js'
import { openapiRoute } from './openapi-route.js'

export const openapiFeature = defineApiFeature({
  name: 'openapi',
  options({ settings }) {
    const value = settings.openapi
    if (value !== undefined && value !== null && typeof value !== 'boolean') {
      throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.openapi must be true or false, got ${JSON.stringify(value)}.`)
    }
    return true
  },
  routes: (options) => [openapiRoute(options.openapiRoute)],
})
