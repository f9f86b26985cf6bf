/**
 * @module auth/two-factor/api-second-step
 * POST `<authRoute>/two-factor`: the API login's second step, for a user whose password was right
 * and who has two-factor authentication (the auth route answered 401 `E_MFA_REQUIRED` with an
 * `mfa_token`). The module's `secondStep.apiRoutes`: `Api.routes()` lists it right after the
 * auth route and makes it a token route (JSON, outside `web`, CSRF-exempt, credential body limit).
 */
import type { HttpContext } from '../../http/context.js'
import { TooManyRequestsError, ValidationError } from '../../http/errors.js'
import { stringField } from '../../http/string-field.js'
import { Route } from '../../routing/route.js'
import type { RouteDefinition } from '../../routing/route-definition.js'
import type { ApiSecondStepContext } from '../features/contract.js'
import { eventBase } from '../events.js'
import { answerSecondStep, CHALLENGE_MESSAGES, refuseStopped, twoFactorBudgetKeys } from './challenge-forms.js'
import { finishApiSecondStep, MFA_PURPOSES } from '../login/flow.js'

/** The second step's messages (422 `E_VALIDATION`, by field). */
export const MFA_STEP_MESSAGES = {
  tokenRequired: 'The mfa_token field is required.',
  tokenInvalid: 'The mfa_token is invalid, used or expired: log in again.',
  codeRequired: 'The code field (or recovery_code) is required.',
} as const

/** The second step's route under the API's auth route (`api.auth.two_factor`). */
export function apiSecondStepRoutes(api: ApiSecondStepContext): RouteDefinition[] {
  // A named handler: `craft routes:list` shows it by name.
  const issueTokenTwoFactor = (ctx: HttpContext): Promise<unknown> => answerApiSecondStep(ctx, api)
  return [Route.post(`${api.authRoute}/two-factor`, issueTokenTwoFactor).name('api.auth.two_factor')]
}

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
async function answerApiSecondStep(ctx: HttpContext, api: ApiSecondStepContext): Promise<unknown> {
  const mfaToken = stringField(ctx, 'mfa_token') ?? ''
  const code = (stringField(ctx, 'code') ?? '').trim()
  const recovery = (stringField(ctx, 'recovery_code') ?? '').trim()
  if (mfaToken === '') throw new ValidationError({ mfa_token: [MFA_STEP_MESSAGES.tokenRequired] })
  if (code === '' && recovery === '') throw new ValidationError({ code: [MFA_STEP_MESSAGES.codeRequired] })
  const app = ctx.app
  const challenges = app.make('auth.challenges')
  const row = app.has('auth.two_factor') ? await challenges.peek(mfaToken, MFA_PURPOSES) : null
  if (!row || row.user_id === null) throw new ValidationError({ mfa_token: [MFA_STEP_MESSAGES.tokenInvalid] })
  const user = await api.user(ctx, String(row.user_id))
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
      ctx.auth.manager.events.emit('auth:throttled', { ...eventBase(ctx, api.guard, user), retryAfter: error.retryAfter })
      throw error
    }
    if (!(await answerSecondStep(ctx, user, api.guard, code, recovery))) {
      throw new ValidationError({ [code !== '' ? 'code' : 'recovery_code']: [CHALLENGE_MESSAGES.invalid] })
    }
    // Single use: the mfa_token goes with the first right answer.
    if (!(await challenges.consume(mfaToken, MFA_PURPOSES))) throw new ValidationError({ mfa_token: [MFA_STEP_MESSAGES.tokenInvalid] })
    await budget.clear(keys[keys.length - 1]!)
  })
  // The login flow: the first step's method, its amr plus `otp` (a password: ['pwd', 'otp']).
  return finishApiSecondStep(ctx, user, row.purpose, api.guard)
}
