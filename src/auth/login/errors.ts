/**
 * @module auth/login/errors
 * `SecondFactorRequiredError` (401 `E_MFA_REQUIRED`): a proven first step whose login waits for a
 * second factor. A login challenge throws it to hold the login back; the API's carries the
 * `mfa_token` to answer with on `POST <authRoute>/two-factor`; on the web the login flow turns it
 * into the pending login and a 302 to `/two-factor-challenge`. (Registered for docs/errors.md with
 * the two-factor feature's errors.)
 */
import { UnauthorizedError } from '../../http/errors.js'

export class SecondFactorRequiredError extends UnauthorizedError {
  /** The single-use token of the API's second step; undefined for a web login (the session holds it). */
  readonly mfaToken: string | undefined

  constructor(mfaToken?: string, message = 'A second factor is required to finish this login.') {
    super(message, { code: 'E_MFA_REQUIRED', details: mfaToken === undefined ? undefined : { mfa_token: mfaToken } })
    this.mfaToken = mfaToken
  }
}
