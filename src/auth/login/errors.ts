/**
 * @module auth/login/errors
 * The second factor's errors, both `E_MFA_REQUIRED` (listed for docs/errors.md with the errors of
 * the feature that asks for second factors):
 * - `SecondFactorRequiredError` (401): a proven first step whose login waits for a second factor.
 *   A login challenge throws it to hold the login back; the API's carries the `mfa_token` to
 *   answer with on the API's second step; on the web the login flow turns it into the pending
 *   login and a 302 to the challenge's page.
 * - `MfaRequiredError` (403): a route behind `mfa` asked for as JSON by a login without a second
 *   factor (a page gets a 302 instead).
 */
import { UnauthorizedError } from '../../http/errors.js'
import { HttpError } from '../../http/http-error.js'

export class SecondFactorRequiredError extends UnauthorizedError {
  /** The single-use token of the API's second step; undefined for a web login (the session holds it). */
  readonly mfaToken: string | undefined
  /** The page a browser answers the second step on (a web login's challenge names it; the login flow redirects there). */
  readonly page: string | undefined

  constructor(mfaToken?: string, message = 'A second factor is required to finish this login.', options: { page?: string } = {}) {
    super(message, { code: 'E_MFA_REQUIRED', details: mfaToken === undefined ? undefined : { mfa_token: mfaToken } })
    this.mfaToken = mfaToken
    this.page = options.page
  }
}

export class MfaRequiredError extends HttpError {
  constructor(message = 'This action needs a login with a second factor.') {
    super(403, 'E_MFA_REQUIRED', message)
  }
}
