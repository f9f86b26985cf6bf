/**
 * @module api/api
 * The `Api` facade: `...Api.routes({ authRoute, reauthRoute })` in `routes/web.ts`, the routes of
 * every piece of the API (the feature list's, in order).
 */
import { apiFeatureRoutes } from './features/registry.js'
import type { ApiRoutesOptions } from './features/contract.js'
import type { RouteEntry } from '../routing/route-group.js'

export type { ApiRoutesOptions }

export const Api = {
  routes(options: ApiRoutesOptions = {}): RouteEntry[] {
    return apiFeatureRoutes(options)
  },
}
