/**
 * @module api/api
 * The `Api` facade: `...Api.routes({ authRoute, reauthRoute })` in `routes/web.ts`.
 */
import { apiRoutes, type ApiRoutesOptions } from './token-routes.js'

export const Api = {
  routes(options: ApiRoutesOptions = {}) {
    return apiRoutes(options)
  },
}
