/**
 * @module auth/email-login/api-routes
 * The API pair of sign-in by e-mail (the feature's `apiRoutes`: `Api.routes()` serves them beside
 * authRoute, outside the `web` stack, JSON, CSRF-exempt, when `email_login` is in `GUARDS.features`):
 * - `POST <authRoute>/email` (`email`) → 202 `{"message": ...}` whether or not the address has an
 *   account (422 for an invalid address, 429 past the `email_login` budget); the mail goes after.
 * - `POST <authRoute>/email/verify` (`email`, `code`) → the token response with amr `['email']`,
 *   401 `E_MFA_REQUIRED` with an `mfa_token` for a TOTP user (as a password login gets), or 401
 *   `E_INVALID_CREDENTIALS`; 429 past the address's budgets. The code is the one the web form
 *   takes: whichever is used first ends it.
 */
import type { HttpContext } from '../../http/context.js'
import { NotFoundError, TooManyRequestsError, ValidationError } from '../../http/errors.js'
import { validate } from '../../validation/index.js'
import { eventBase } from '../events.js'
import { normalizeEmail } from '../email.js'
import { InvalidCredentialsError } from '../errors.js'
import { clientKey } from '../throttle/client-key.js'
import { accountOf, EMAIL_AMR, verifyAddress } from './complete.js'
import type { EmailLogin } from './email-login.js'
import { EMAIL_LOGIN_MESSAGES } from './forms.js'
import { finishApiLogin } from '../login/flow.js'

function service(ctx: HttpContext): EmailLogin {
  const found = ctx.app.get<EmailLogin>('auth.email_login')
  if (!found) throw new NotFoundError()
  return found
}

function field(ctx: HttpContext, name: string): string {
  const value = ctx.request.post(name)
  if (value !== undefined && typeof value !== 'string') throw new ValidationError({ [name]: [`The ${name} field must be a string.`] })
  return value ?? ''
}

/** POST <authRoute>/email */
export async function requestEmailLoginByApi(ctx: HttpContext): Promise<unknown> {
  const emailLogin = service(ctx)
  field(ctx, 'email')
  const data = await validate(ctx.request.body, { email: 'required|string|email|max:255' })
  const wait = await emailLogin.request.take(emailLogin.request.key(clientKey(ctx.request.ip())))
  if (wait !== null) throw new TooManyRequestsError(wait)
  emailLogin.send(ctx, normalizeEmail(data.email))
  ctx.response.status(202)
  return { message: EMAIL_LOGIN_MESSAGES.sent }
}

/** POST <authRoute>/email/verify */
export async function verifyEmailLoginByApi(ctx: HttpContext): Promise<unknown> {
  const emailLogin = service(ctx)
  const email = field(ctx, 'email').trim()
  const code = field(ctx, 'code').replace(/\s+/g, '')
  const outcome = await emailLogin.checkCode(ctx, email, code)
  if (outcome.kind === 'throttled') throw new TooManyRequestsError(outcome.retryAfter)
  if (outcome.kind === 'invalid') throw new InvalidCredentialsError(EMAIL_LOGIN_MESSAGES.codeInvalid)
  const account = await accountOf(emailLogin, outcome.row)
  if (!account) throw new InvalidCredentialsError(EMAIL_LOGIN_MESSAGES.codeInvalid)
  await verifyAddress(emailLogin, account)
  const { user } = account
  const manager = emailLogin.manager
  if (account.created) manager.events.emit('auth:registered', { ...eventBase(ctx, 'jwt', user), method: 'email' })
  // The login flow: a user with a second factor gets 401 E_MFA_REQUIRED with an mfa_token,
  // answered on the API's second step (amr ['email', 'otp']); otherwise the token, amr ['email'].
  return finishApiLogin(ctx, { user, method: 'email_code', amr: EMAIL_AMR })
}
