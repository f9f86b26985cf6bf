/**
 * @module auth/passkeys/events
 * The events of the `passkeys` feature (on `app.events`, logged and recorded in the audit log).
 */
import type { AuthEventBase } from '../events.js'
import type { AuthUser } from '../types.js'

declare module '../../events/event-map.js' {
  interface EventMap {
    /** A passkey registered (`passkeyId` its row, `name` its label). */
    'auth:passkey_added': AuthEventBase & { user: AuthUser; passkeyId: number; name: string; item: { kind: 'passkeys'; id: string } }
    'auth:passkey_removed': AuthEventBase & { user: AuthUser; passkeyId: number; name: string }
  }
}
