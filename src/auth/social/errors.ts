/**
 * @module auth/social/errors
 * Social login's errors and events. A failed provider round trip on the web is never an error
 * page: it is a 302 to /login with one message (forms.ts); these are the JSON answers.
 */
import { HttpError, type HttpErrorOptions } from '../../http/http-error.js'
import type { AuthEventBase } from '../events.js'
import type { AuthUser } from '../types.js'

/** 409: the native ID token names an address with an account that is not linked to this identity. */
export class SocialLinkRequiredError extends HttpError {
  constructor(message = 'An account with this e-mail address exists: log in to it and connect this provider from your account first.', options?: HttpErrorOptions) {
    super(409, 'E_SOCIAL_LINK_REQUIRED', message, options)
  }
}

declare module '../events.js' {
  interface AuthEvents {
    /** An identity at `provider` was linked to `user` (`item`: the inventory item it added). */
    'auth:social_linked': AuthEventBase & { user: AuthUser; provider: string; item: { kind: 'social_identities'; id: string } }
    /** An identity at `provider` was disconnected from `user`. */
    'auth:social_unlinked': AuthEventBase & { user: AuthUser; provider: string }
  }
}
