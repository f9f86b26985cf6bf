/**
 * @module api/token-routes/routes
 * The token routes of `Api.routes({ authRoute, reauthRoute })`: POST authRoute (`username`,
 * `password`) → `{"data": "<JWT>"}` (a user a feature holds back after the password: 401
 * `E_MFA_REQUIRED` with an `mfa_token`, answered by the login's second step, which the feature
 * serving it lists right after, see `secondStep.apiRoutes`); POST reauthRoute (`token`) → `{"data": "<new JWT>"}`; POST /api/logout
 * (Bearer) → 204; POST /api/revoke (`token`, RFC 7009) → 200. Between the second step and reauth,
 * the API routes of the auth features the mounting app turned on (sign-in by e-mail, ...): a
 * `Route.deferred` entry, expanded with that app. Declared in `routes/web.ts` but outside the
 * `web` stack: no session, no cookie, no CSRF, JSON errors. Each takes a password, a code or a
 * token, so each has the credential body limit. Served only when ApiProvider is registered
 * (startup stops otherwise).
 */
import { Route } from '../../routing/route.js'
import type { RouteDefinition } from '../../routing/route-definition.js'
import type { RouteEntry } from '../../routing/route-group.js'
import type { Application } from '../../foundation/application.js'
import type { HttpContext } from '../../http/context.js'
import type { AuthUser } from '../../auth/types.js'
import { CREDENTIAL_BODY_LIMIT } from '../../http/body-parser.js'
import { ValidationError } from '../../http/errors.js'
import type { ApiSecondStepContext } from '../../auth/features/contract.js'
import { featureApiRoutes, featuresOf, secondStepApiRoutes } from '../../auth/features/registry.js'
import { enabledFeatures } from '../../auth/auth-routes.js'
import { ApiCredentialsError } from '../errors.js'
import { JWT_GUARD, jwtGuardOf } from '../guards/jwt/jwt-guard-of.js'
import { asApiRoute } from '../api-route.js'
import type { ApiRoutesOptions } from '../features/contract.js'
import { stringField } from '../../http/string-field.js'

async function issueToken(ctx: HttpContext): Promise<unknown> {
  const username = stringField(ctx, 'username')
  const password = stringField(ctx, 'password')
  const guard = jwtGuardOf(ctx)
  if (!(await guard.attempt(username, password))) throw new ApiCredentialsError()
  return { data: guard.token }
}

async function reissueToken(ctx: HttpContext): Promise<unknown> {
  const value = ctx.request.post('token')
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw new ValidationError({ token: ['The token field must be a string.'] })
  }
  return { data: await jwtGuardOf(ctx).reissue(value) }
}

/** POST /api/logout with the Bearer token to end: 204 (401 when none, or an invalid one, came). */
async function logout(ctx: HttpContext): Promise<unknown> {
  const guard = jwtGuardOf(ctx)
  await guard.verifyRequest()
  await guard.logout()
  ctx.response.status(204)
  return ''
}

/**
 * POST /api/revoke (RFC 7009) with `token`: the token stops working and can no longer be
 * reissued if it was its user's current one. 200 whether or not it was (the answer tells nothing
 * about the token); a missing or non-string `token` is 422.
 */
async function revoke(ctx: HttpContext): Promise<unknown> {
  const token = stringField(ctx, 'token')
  if (token === undefined || token === '') throw new ValidationError({ token: ['The token field is required.'] })
  await jwtGuardOf(ctx).revokeToken(token)
  ctx.response.header('Cache-Control', 'no-store')
  return {}
}

/** An API route with the credential body limit (it takes a password, a code or a token: a few kilobytes). */
function asTokenRoute(route: RouteDefinition): RouteDefinition {
  return asApiRoute(route).bodyLimit(CREDENTIAL_BODY_LIMIT)
}

function tokenRoute(path: string, handler: (ctx: HttpContext) => unknown, name: string): RouteDefinition {
  return asTokenRoute(Route.post(path, handler).name(name))
}

/** The user of the `jwt` guard's provider with this primary key (the user a token would name). */
async function tokenUser(ctx: HttpContext, id: string): Promise<AuthUser | null> {
  jwtGuardOf(ctx) // the guard first, as every token route does (unregistered: the error that says so)
  return (await ctx.app.make('api.jwt').provider.findRecord(id))?.user() ?? null
}

export function tokenRoutes(options: ApiRoutesOptions): RouteEntry[] {
  const authRoute = options.authRoute ?? '/api/auth'
  const secondStep: ApiSecondStepContext = { authRoute, guard: JWT_GUARD, user: tokenUser }
  return [
    tokenRoute(authRoute, issueToken, 'api.auth'),
    // The login's second step, where a login held back after the password gets its token.
    Route.deferred((owner) => secondStepApiRoutes(secondStep, featuresOf(owner as Application)).map(asTokenRoute)),
    // The API routes of the auth features the mounting app turned on (sign-in by e-mail, ...), made token routes.
    Route.deferred((owner) => {
      const app = owner as Application
      return featureApiRoutes(enabledFeatures(app), { authRoute }, featuresOf(app), app).map(asTokenRoute)
    }),
    tokenRoute(options.reauthRoute ?? '/api/reauth', reissueToken, 'api.reauth'),
    tokenRoute(options.logoutRoute ?? '/api/logout', logout, 'api.logout'),
    tokenRoute(options.revokeRoute ?? '/api/revoke', revoke, 'api.revoke'),
  ]
}
