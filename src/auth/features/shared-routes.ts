/**
 * @module auth/features/shared-routes
 * Pages two features share, each listed by whichever of them is on (the other checks `on`), so
 * neither imports the other.
 */
import { Route } from '../../routing/route.js'
import { CREDENTIAL_BODY_LIMIT } from '../../http/body-parser.js'
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

/** The second step of a login, and the step-up `mfa` sends to: served by `two_factor`, else by `passkeys`. */
export function secondStepRoutes(): RouteDefinition[] {
  return [
    Route.get('/two-factor-challenge', 'auth/TwoFactorChallengeController@show').name('two_factor.challenge'),
    Route.post('/two-factor-challenge', 'auth/TwoFactorChallengeController@store').name('two_factor.challenge.store').bodyLimit(CREDENTIAL_BODY_LIMIT),
  ]
}
