/**
 * @module api/personal-tokens/routes
 * The personal access tokens page of `Api.routes()` (`GET /account/tokens`, `POST
 * /account/tokens`, `POST /account/tokens/@id/revoke`, `POST /account/tokens/revoke-all`; see
 * token-forms): inside the `web` stack (session, CSRF) behind `auth`. Creating a token adds a way
 * in: a verified address first (so an unverified user is sent to verify, not asked for a
 * password), then a password typed within `password_timeout`, then (for a user who has one) a
 * second factor given within that time (`mfa.recent`). `tokensPage: false` leaves it out.
 */
import { Route } from '../../routing/route.js'
import type { RouteDefinition } from '../../routing/route-definition.js'
import { API_ROUTES_KEY } from '../api-route.js'
import type { ApiRoutesOptions } from '../features/contract.js'
import { PersonalTokenForms } from './token-forms.js'
import { VerifiedAddressMiddleware } from './verified-address.js'

/** A page of the personal access tokens: web stack (session, CSRF), logged-in users only. */
function tokensPageRoute(route: RouteDefinition, name: string): RouteDefinition {
  // A page of the auth flows: a JSON request gets its data (session/json-forms); creating a token is 201.
  route.name(name).middleware(['auth']).form(name === 'account.tokens.store' ? 'create' : 'form')
  route.requiresProvider = { ...API_ROUTES_KEY }
  return route
}

export function tokensPageRoutes(options: ApiRoutesOptions): RouteDefinition[] {
  if (options.tokensPage === false) return []
  return [
    tokensPageRoute(Route.get('/account/tokens', PersonalTokenForms.index), 'account.tokens'),
    tokensPageRoute(Route.post('/account/tokens', PersonalTokenForms.store), 'account.tokens.store').middleware([VerifiedAddressMiddleware, 'password.confirm', 'mfa.recent']),
    tokensPageRoute(Route.post('/account/tokens/revoke-all', PersonalTokenForms.revokeAll), 'account.tokens.revoke_all'),
    tokensPageRoute(Route.post('/account/tokens/@id/revoke', PersonalTokenForms.revoke), 'account.tokens.revoke'),
  ]
}
