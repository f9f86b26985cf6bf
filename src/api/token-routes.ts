/**
 * @module api/token-routes
 * `Api.routes({ authRoute, reauthRoute })`: POST authRoute (`username`, `password`) →
 * `{"data": "<JWT>"}`; POST reauthRoute (`token`) → `{"data": "<new JWT>"}`. Declared in
 * `routes/web.ts` but outside the `web` stack: no session, no cookie, no CSRF, JSON errors.
 * Served only when ApiProvider is registered (startup stops otherwise).
 */
import { Route } from '../routing/route.js'
import type { RouteDefinition } from '../routing/route-definition.js'
import type { HttpContext } from '../http/context.js'
import { ValidationError } from '../http/errors.js'
import type { JwtService } from './jwt-service.js'
import type { CredentialVerifier } from '../auth/credential-verifier.js'
import { ApiCredentialsError, ReauthFailedError } from './errors.js'

export interface ApiRoutesOptions {
  authRoute?: string
  reauthRoute?: string
}

function stringField(ctx: HttpContext, name: string): string | undefined {
  // Body only: credentials and tokens never come from the query string.
  const value = ctx.request.post(name)
  if (value === undefined) return undefined
  // null, numbers, arrays (repeated form keys) and objects (`{"$ne": null}`) are type confusion: 422.
  if (typeof value !== 'string') throw new ValidationError({ [name]: [`The ${name} field must be a string.`] })
  return value
}

async function issueToken(ctx: HttpContext): Promise<unknown> {
  const username = stringField(ctx, 'username')
  const password = stringField(ctx, 'password')
  const jwt = ctx.app.make<JwtService>('api.jwt')
  const verifier = ctx.app.make<CredentialVerifier>('auth.verifier')
  const user = await verifier.verify(jwt.model, username, password, ctx.request.ip(), 'api')
  if (!user) throw new ApiCredentialsError()
  const token = await jwt.issue(user)
  ctx.app.log.info('auth.token_issued', { user_id: user.getKey(), ip: ctx.request.ip() })
  return { data: token }
}

async function reissueToken(ctx: HttpContext): Promise<unknown> {
  const value = ctx.request.post('token')
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw new ValidationError({ token: ['The token field must be a string.'] })
  }
  try {
    const { token, sub } = await ctx.app.make<JwtService>('api.jwt').reissue(value)
    ctx.app.log.info('auth.token_reissued', { user_id: sub, ip: ctx.request.ip() })
    return { data: token }
  } catch (error) {
    if (error instanceof ReauthFailedError) ctx.app.log.info('auth.reauth_failed', { ip: ctx.request.ip() })
    throw error
  }
}

function tokenRoute(path: string, handler: (ctx: HttpContext) => unknown, name: string): RouteDefinition {
  const route = Route.post(path, handler).name(name).withoutMiddleware('web')
  route.csrfExempt = true
  route.json = true
  route.requiresProvider = { name: 'ApiProvider', key: 'Api.routes() in routes/web.ts' }
  return route
}

export function apiRoutes(options: ApiRoutesOptions = {}): RouteDefinition[] {
  return [
    tokenRoute(options.authRoute ?? '/api/auth', issueToken, 'api.auth'),
    tokenRoute(options.reauthRoute ?? '/api/reauth', reissueToken, 'api.reauth'),
  ]
}
