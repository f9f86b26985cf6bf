/**
 * @module api/token-routes/feature
 * The token routes as a piece of the API: log in (and its second step), reauth, logout, revoke,
 * and between them the API routes of the auth features that are on (see routes).
 */
import { defineApiFeature } from '../features/contract.js'
import { tokenRoutes } from './routes.js'

export const tokenRoutesFeature = defineApiFeature({
  name: 'token_routes',
  routes: tokenRoutes,
})
