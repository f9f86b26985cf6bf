/**
 * @module auth/features/shared-routes
 * Pages two features share, each listed by whichever of them is on (the other checks `on`), so
 * neither imports the other. (The login's second step, which every feature offering a second
 * factor needs, is the contract's `secondStep`.)
 */
import { Route } from '../../routing/route.js'
import type { RouteDefinition } from '../../routing/route-definition.js'

/**
 * The mailed address link (registration's, and a changed address's): GET (and HEAD) show a page
 * and change nothing; its button POSTs to the same path. Served by whichever feature mails it.
 */
export function emailLinkRoutes(): RouteDefinition[] {
  return [
    Route.get('/email/verify/@token', 'auth/EmailVerificationController@verify').name('verification.verify'),
    Route.post('/email/verify/@token', 'auth/EmailVerificationController@verify').name('verification.confirm'),
  ]
}
