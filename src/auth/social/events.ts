/**
 * @module auth/social/events
 * The events of social login (on `app.events`, logged and recorded in the audit log).
 */
import type { AuthEventBase } from '../events.js'
import type { AuthUser } from '../types.js'

declare module '../../events/event-map.js' {
  interface EventMap {
    /** An identity at `provider` was linked to `user` (`item`: the inventory item it added). */
    'auth:social_linked': AuthEventBase & { user: AuthUser; provider: string; item: { kind: 'social_identities'; id: string } }
    /** An identity at `provider` was disconnected from `user`. */
    'auth:social_unlinked': AuthEventBase & { user: AuthUser; provider: string }
  }
}
