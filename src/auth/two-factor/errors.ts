/**
 * @module auth/two-factor/errors
 * The second factor's errors (both `E_MFA_REQUIRED`), the login flow's: the core holds a login
 * back and refuses a route behind `mfa` with them. Listed here with the feature's errors (the
 * error catalogue walks each feature's module).
 */
export { SecondFactorRequiredError, MfaRequiredError } from '../login/errors.js'
