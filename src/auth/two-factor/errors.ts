/**
 * @module auth/two-factor/errors
 * The second factor's errors, both `E_MFA_REQUIRED`:
 * - `SecondFactorRequiredError` (401): a correct password whose login waits for a second factor.
 *   The API's carries the `mfa_token` to answer with on `POST <authRoute>/two-factor`; the login
 *   form turns its own into a 302 to `/two-factor-challenge`.
 * - `MfaRequiredError` (403): a route behind `mfa` asked for as JSON by a login without a second
 *   factor (a page gets a 302 instead).
 */
import { HttpError } from '../../http/http-error.js'

// The login flow's (it holds a login back with it); listed here with the feature's errors.
export { SecondFactorRequiredError } from '../login/errors.js'

export class MfaRequiredError extends HttpError {
  constructor(message = 'This action needs a login with a second factor.') {
    super(403, 'E_MFA_REQUIRED', message)
  }
}
