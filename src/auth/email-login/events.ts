/**
 * @module auth/email-login/events
 * The events of sign-in by e-mail (on `app.events`, logged and recorded in the audit log).
 */
import type { AuthEventBase } from '../events.js'

declare module '../../events/event-map.js' {
  interface EventMap {
    /** A sign-in link and code mailed; `user` is null when the first use registers. */
    'auth:login_link_sent': AuthEventBase
  }
}
