/**
 * @module api/jwks/feature
 * The JWK Set as a piece of the API: `GET /.well-known/jwks.json` (`jwksRoute` of `Api.routes()`).
 */
import { defineApiFeature } from '../features/contract.js'
import { jwksRoute } from './jwks-route.js'

export const jwksFeature = defineApiFeature({
  name: 'jwks',
  routes: (options) => [jwksRoute(options.jwksRoute)],
})
