/**
 * @module auth/two-factor/second-step-routes
 * The page of a login's second step (`/two-factor-challenge`), which the `mfa` step-up also uses:
 * the module's `secondStep`, served whenever a feature offering a second factor is on.
 */
import { Route } from '../../routing/route.js'
import { CREDENTIAL_BODY_LIMIT } from '../../http/body-parser.js'
import type { RouteDefinition } from '../../routing/route-definition.js'

/** The second step's page. */
export const CHALLENGE_PAGE = '/two-factor-challenge'

export function secondStepRoutes(): RouteDefinition[] {
  return [
    Route.get(CHALLENGE_PAGE, 'auth/TwoFactorChallengeController@show').name('two_factor.challenge'),
    Route.post(CHALLENGE_PAGE, 'auth/TwoFactorChallengeController@store').name('two_factor.challenge.store').bodyLimit(CREDENTIAL_BODY_LIMIT),
  ]
}
