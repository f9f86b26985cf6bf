/**
 * @module auth/passkeys/errors
 * The passkey routes' errors. A response that is not a WebAuthn credential at all, or a
 * registration that does not verify, is a 400; a sign-in that does not verify is a 401 (nobody is
 * logged in); a sign-in with a passkey of another account while logged in is a 403.
 */
import { HttpError, type HttpErrorOptions } from '../../http/http-error.js'
import { UnauthorizedError } from '../../http/errors.js'

/**
 * 400: the body is not a WebAuthn credential, or a registration does not verify (forged, for
 * another site, an unknown, used or expired challenge, a passkey already registered).
 */
export class PasskeyInvalidError extends HttpError {
  constructor(message = 'The passkey response could not be verified. Please try again.', options?: HttpErrorOptions) {
    super(400, 'E_PASSKEY_INVALID', message, options)
  }
}

/**
 * 401: a passkey sign-in was refused (an unknown passkey, a bad signature, an unknown, used or
 * expired challenge, a signature counter that went backwards). Nobody is logged in.
 */
export class PasskeyLoginFailedError extends UnauthorizedError {
  constructor(message = 'The passkey sign-in failed. Please try again.', options: HttpErrorOptions = {}) {
    super(message, { ...options, code: 'E_PASSKEY_FAILED' })
  }
}

/** 403: a logged-in user answered with a passkey of another account; the login is not switched. */
export class PasskeyWrongAccountError extends HttpError {
  constructor(message = 'This passkey belongs to another account. Log out first to use it.', options?: HttpErrorOptions) {
    super(403, 'E_PASSKEY_WRONG_ACCOUNT', message, options)
  }
}
