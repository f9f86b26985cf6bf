/**
 * @module auth/two-factor/events
 * The events of the `two_factor` feature (on `app.events`, logged and recorded in the audit log).
 */
import type { AuthEventBase } from '../events.js'
import type { AuthUser } from '../types.js'
import type { SecondFactorFailure } from '../login/types.js'

declare module '../../events/event-map.js' {
  interface EventMap {
    /** TOTP confirmed with a first code (recovery codes issued). `item`: the added way in, for the notice's "This wasn't me" (the TOTP enrolment, named by the user's id). */
    'auth:two_factor_enabled': AuthEventBase & { user: AuthUser; item: { kind: 'totp'; id: string } }
    /** TOTP turned off (its secret, recovery codes and trusted devices deleted). */
    'auth:two_factor_disabled': AuthEventBase & { user: AuthUser }
    /** A wrong, replayed or expired second-factor code (`method`: totp, recovery_code or passkey). */
    'auth:two_factor_failed': SecondFactorFailure
  }
}
