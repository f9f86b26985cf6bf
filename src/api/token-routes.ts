/**
 * @module api/token-routes
 * `Api.routes({ authRoute, reauthRoute })`: POST authRoute (`username`, `password`) →
 * `{"data": "<JWT>"}` (a user with two-factor authentication: 401 `E_MFA_REQUIRED` with an
 * `mfa_token`, answered on POST `<authRoute>/two-factor` with `code` or `recovery_code`);
 * POST reauthRoute (`token`) → `{"data": "<new JWT>"}`; POST /api/logout
 * (Bearer) → 204; POST /api/revoke (`token`, RFC 7009) → 200; GET /.well-known/jwks.json (the
 * public keys, see jwks-route) and GET /api/openapi.json (see openapi/openapi-route). Declared in
 * `routes/web.ts` but outside the `web` stack: no session, no cookie, no CSRF, JSON errors.
 * Served only when ApiProvider is registered (startup stops otherwise).
 * Also the personal access tokens page (`GET /account/tokens`, `POST /account/tokens`,
 * `POST /account/tokens/@id/revoke`, `POST /account/tokens/revoke-all`): inside the `web` stack
 * (session, CSRF) behind `auth`; creating a token is also behind a verified address,
 * `password.confirm` and a recent second factor. `tokensPage: false` leaves it out.
 */
import { Route } from '../routing/route.js'
import { CREDENTIAL_BODY_LIMIT } from '../http/body-parser.js'
import type { RouteDefinition } from '../routing/route-definition.js'
import type { RouteEntry } from '../routing/route-group.js'
import type { Application } from '../foundation/application.js'
import type { HttpContext } from '../http/context.js'
import { TooManyRequestsError, ValidationError } from '../http/errors.js'
import { eventBase } from '../auth/events.js'
import { answerSecondStep, CHALLENGE_MESSAGES, refuseStopped, twoFactorBudgetKeys } from '../auth/two-factor/challenge-forms.js'
import { finishApiSecondStep, MFA_PURPOSES } from '../auth/login/flow.js'
import type { JwtGuard } from './guards/jwt/guard.js'
import { ApiCredentialsError } from './errors.js'
import { PersonalTokenForms } from './personal-tokens/token-forms.js'
import { VerifiedAddressMiddleware } from './personal-tokens/verified-address.js'
import { jwksRoute } from './jwks-route.js'
import { openapiRoute } from './openapi/openapi-route.js'
import { featureApiRoutes, featuresOf } from '../auth/features/registry.js'
import { enabledFeatures } from '../auth/auth-routes.js'

export interface ApiRoutesOptions {
  /** The personal access tokens page at /account/tokens (default true). */
  tokensPage?: boolean
  authRoute?: string
  reauthRoute?: string
  /** POST, Bearer: ends the presented token (default `/api/logout`). */
  logoutRoute?: string
  /** POST `token` (RFC 7009): revokes it if it is current (default `/api/revoke`). */
  revokeRoute?: string
  /** GET: the JWK Set of the public keys (default `/.well-known/jwks.json`; 404 with HMAC). */
  jwksRoute?: string
  /** GET: the OpenAPI document (default `/api/openapi.json`; 404 unless `DRIVERS.jwt.openapi` is true). */
  openapiRoute?: string
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

/** The second step's messages (422 `E_VALIDATION`, by field). */
export const MFA_STEP_MESSAGES = {
  tokenRequired: 'The mfa_token field is required.',
  tokenInvalid: 'The mfa_token is invalid, used or expired: log in again.',
  codeRequired: 'The code field (or recovery_code) is required.',
} as const

/**
 * POST `<authRoute>/two-factor` (`mfa_token`, and `code` or `recovery_code`): the second step of
 * a login whose password was right for a user with two-factor authentication (authRoute answered
 * 401 `E_MFA_REQUIRED` with the `mfa_token`). Answers for one mfa_token are checked one at a time
 * (a concurrent one: 429 `E_TOO_MANY_REQUESTS`, no code touched); after 20 wrong answers in a day
 * the account's answers stop until a password reset (429). Every answer takes a slot of the `two_factor` budget
 * of that mfa_token and one of its user. A wrong code: 422, and the mfa_token stays usable (until
 * the budget refuses or it expires). A right one uses the mfa_token up (of concurrent right
 * answers exactly one gets a token) and answers as authRoute does, the token's `amr` being
 * the first step's plus `otp` (`['pwd', 'otp']`; after an e-mailed code `['email', 'otp']`).
 */
async function issueTokenTwoFactor(ctx: HttpContext): Promise<unknown> {
  const mfaToken = stringField(ctx, 'mfa_token') ?? ''
  const code = (stringField(ctx, 'code') ?? '').trim()
  const recovery = (stringField(ctx, 'recovery_code') ?? '').trim()
  if (mfaToken === '') throw new ValidationError({ mfa_token: [MFA_STEP_MESSAGES.tokenRequired] })
  if (code === '' && recovery === '') throw new ValidationError({ code: [MFA_STEP_MESSAGES.codeRequired] })
  const app = ctx.app
  const challenges = app.make('auth.challenges')
  const row = app.has('auth.two_factor') ? await challenges.peek(mfaToken, MFA_PURPOSES) : null
  if (!row || row.user_id === null) throw new ValidationError({ mfa_token: [MFA_STEP_MESSAGES.tokenInvalid] })
  const guard = ctx.auth.resolve<JwtGuard>('jwt')
  const jwt = app.make('api.jwt')
  const user = (await jwt.provider.findRecord(String(row.user_id)))?.user()
  if (!user) throw new ValidationError({ mfa_token: [MFA_STEP_MESSAGES.tokenInvalid] })
  await refuseStopped(ctx, user)
  // One answer per mfa_token at a time: a concurrent one is 429 before any code is looked at, so
  // concurrent answers never use up more than one recovery code.
  await app.make('auth.two_factor_challenge').watch.oneAtATime(`mfa:${row.id}`, async () => {
    // Read again inside the turn: an answer that got its turn after a right one (which used the
    // mfa_token up) must not touch, and so burn, another recovery code.
    if (!(await challenges.peek(mfaToken, MFA_PURPOSES))) throw new ValidationError({ mfa_token: [MFA_STEP_MESSAGES.tokenInvalid] })
    const budget = ctx.auth.manager.budgets.two_factor
    const keys = await twoFactorBudgetKeys(ctx, user.getKey(), `mfa:${row.id}`)
    const waits = await Promise.all(keys.map((key) => budget.take(key)))
    if (waits.some((wait) => wait !== null)) {
      const error = new TooManyRequestsError(Math.max(...waits.map((wait) => wait ?? 0)))
      ctx.app.log.warn('auth.two_factor_throttled', { user_id: user.getKey(), ip: ctx.request.ip(), request_id: ctx.request.id, retry_after: error.retryAfter })
      ctx.auth.manager.events.emit('auth:throttled', { ...eventBase(ctx, guard.name, user), retryAfter: error.retryAfter })
      throw error
    }
    if (!(await answerSecondStep(ctx, user, guard.name, code, recovery))) {
      throw new ValidationError({ [code !== '' ? 'code' : 'recovery_code']: [CHALLENGE_MESSAGES.invalid] })
    }
    // Single use: the mfa_token goes with the first right answer.
    if (!(await challenges.consume(mfaToken, MFA_PURPOSES))) throw new ValidationError({ mfa_token: [MFA_STEP_MESSAGES.tokenInvalid] })
    await budget.clear(keys[keys.length - 1]!)
  })
  // The login flow: the first step's method, its amr plus `otp` (a password: ['pwd', 'otp']).
  return finishApiSecondStep(ctx, user, row.purpose, guard.name)
}

async function reissueToken(ctx: HttpContext): Promise<unknown> {
  const value = ctx.request.post('token')
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw new ValidationError({ token: ['The token field must be a string.'] })
  }
  return { data: await ctx.auth.resolve<JwtGuard>('jwt').reissue(value) }
}

/** POST /api/logout with the Bearer token to end: 204 (401 when none, or an invalid one, came). */
async function logout(ctx: HttpContext): Promise<unknown> {
  const guard = ctx.auth.resolve<JwtGuard>('jwt')
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
  const guard = ctx.auth.resolve<JwtGuard>('jwt')
  await guard.revokeToken(token)
  ctx.response.header('Cache-Control', 'no-store')
  return {}
}

function tokenRoute(path: string, handler: (ctx: HttpContext) => unknown, name: string): RouteDefinition {
  return asTokenRoute(Route.post(path, handler).name(name))
}

/**
 * A route of the API's: outside the `web` stack, CSRF-exempt, JSON, only with ApiProvider, and
 * with the credential body limit (each takes a password, a code or a token: a few kilobytes).
 */
function asTokenRoute(route: RouteDefinition): RouteDefinition {
  route.withoutMiddleware('web').bodyLimit(CREDENTIAL_BODY_LIMIT)
  route.csrfExempt = true
  route.json = true
  route.requiresProvider = { name: 'ApiProvider', key: 'Api.routes() in routes/web.ts' }
  return route
}

/** A page of the personal access tokens: web stack (session, CSRF), logged-in users only. */
function tokensPageRoute(route: RouteDefinition, name: string): RouteDefinition {
  // A page of the auth flows: a JSON request gets its data (session/json-forms); creating a token is 201.
  route.name(name).middleware(['auth']).form(name === 'account.tokens.store' ? 'create' : 'form')
  route.requiresProvider = { name: 'ApiProvider', key: 'Api.routes() in routes/web.ts' }
  return route
}

/**
 * The personal access tokens page (see personal-tokens/token-forms). Creating one adds a way in:
 * a verified address first (so an unverified user is sent to verify, not asked for a password),
 * then a password typed within `password_timeout`, then (for a user who has one) a second factor
 * given within that time (`mfa.recent`).
 */
function tokensPage(options: ApiRoutesOptions): RouteDefinition[] {
  if (options.tokensPage === false) return []
  return [
    tokensPageRoute(Route.get('/account/tokens', PersonalTokenForms.index), 'account.tokens'),
    tokensPageRoute(Route.post('/account/tokens', PersonalTokenForms.store), 'account.tokens.store').middleware([VerifiedAddressMiddleware, 'password.confirm', 'mfa.recent']),
    tokensPageRoute(Route.post('/account/tokens/revoke-all', PersonalTokenForms.revokeAll), 'account.tokens.revoke_all'),
    tokensPageRoute(Route.post('/account/tokens/@id/revoke', PersonalTokenForms.revoke), 'account.tokens.revoke'),
  ]
}

export function apiRoutes(options: ApiRoutesOptions = {}): RouteEntry[] {
  return [
    ...tokensPage(options),
    tokenRoute(options.authRoute ?? '/api/auth', issueToken, 'api.auth'),
    tokenRoute(`${options.authRoute ?? '/api/auth'}/two-factor`, issueTokenTwoFactor, 'api.auth.two_factor'),
    // The API routes of the auth features the mounting app turned on (sign-in by e-mail, ...), made token routes.
    Route.deferred((owner) => {
      const app = owner as Application
      return featureApiRoutes(enabledFeatures(app), { authRoute: options.authRoute ?? '/api/auth' }, featuresOf(app), app).map(asTokenRoute)
    }),
    tokenRoute(options.reauthRoute ?? '/api/reauth', reissueToken, 'api.reauth'),
    tokenRoute(options.logoutRoute ?? '/api/logout', logout, 'api.logout'),
    tokenRoute(options.revokeRoute ?? '/api/revoke', revoke, 'api.revoke'),
    jwksRoute(options.jwksRoute),
    openapiRoute(options.openapiRoute),
  ]
}
