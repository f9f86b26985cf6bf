/**
 * @module auth/social/errors
 * Social login's errors. A failed provider round trip on the web is never an error page: it is a
 * 302 to /login with one message (forms.ts); this is a JSON answer of the native route.
 */
import { HttpError, type HttpErrorOptions } from '../../http/http-error.js'

/** 409: the native ID token names an address with an account that is not linked to this identity. */
export class SocialLinkRequiredError extends HttpError {
  constructor(message = 'An account with this e-mail address exists: log in to it and connect this provider from your account first.', options?: HttpErrorOptions) {
    super(409, 'E_SOCIAL_LINK_REQUIRED', message, options)
  }
}
