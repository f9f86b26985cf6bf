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
import type { JwtGuard } from './guards/jwt/guard.js'
import { ApiCredentialsError } from './errors.js'

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
  const guard = ctx.auth.resolve<JwtGuard>('jwt')
  if (!(await guard.attempt(username, password))) throw new ApiCredentialsError()
  return { data: guard.token }
}

async function reissueToken(ctx: HttpContext): Promise<unknown> {
  const value = ctx.request.post('token')
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw new ValidationError({ token: ['The token field must be a string.'] })
  }
  return { data: await ctx.auth.resolve<JwtGuard>('jwt').reissue(value) }
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
