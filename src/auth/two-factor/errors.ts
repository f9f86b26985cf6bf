/**
 * @module auth/two-factor/errors
 * The second factor's errors, both `E_MFA_REQUIRED`:
 * - `SecondFactorRequiredError` (401): a correct password whose login waits for a second factor.
 *   The API's carries the `mfa_token` to answer with on `POST <authRoute>/two-factor`; the login
 *   form turns its own into a 302 to `/two-factor-challenge`.
 * - `MfaRequiredError` (403): a route behind `mfa` asked for as JSON by a login without a second
 *   factor (a page gets a 302 instead).
 */
import { UnauthorizedError } from '../../http/errors.js'
import { HttpError } from '../../http/http-error.js'

export class SecondFactorRequiredError extends UnauthorizedError {
  /** The single-use token of the API's second step; undefined for a web login (the session holds it). */
  readonly mfaToken: string | undefined

  constructor(mfaToken?: string, message = 'A second factor is required to finish this login.') {
    super(message, { code: 'E_MFA_REQUIRED', details: mfaToken === undefined ? undefined : { mfa_token: mfaToken } })
    this.mfaToken = mfaToken
  }
}

export class MfaRequiredError extends HttpError {
  constructor(message = 'This action needs a login with a second factor.') {
    super(403, 'E_MFA_REQUIRED', message)
  }
}
