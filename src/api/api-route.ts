/**
 * @module api/api-route
 * What makes a route one of the API's (`Api.routes()`): outside the `web` stack (no session, no
 * cookie), CSRF-exempt, JSON errors, and served only when ApiProvider is registered (startup
 * stops otherwise, naming what to add).
 */
import type { RouteDefinition } from '../routing/route-definition.js'

/** Where the app asked for the routes `ApiProvider` must serve (named when it is missing). */
export const API_ROUTES_KEY = { name: 'ApiProvider', key: 'Api.routes() in routes/web.ts' } as const

/** Makes `route` one of the API's (see the module comment); returns it. */
export function asApiRoute(route: RouteDefinition): RouteDefinition {
  route.withoutMiddleware('web')
  route.csrfExempt = true
  route.json = true
  route.requiresProvider = { ...API_ROUTES_KEY }
  return route
}
