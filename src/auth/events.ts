/**
 * @module auth/events
 * The core's auth events, emitted on `app.events`, with their payloads (a feature declares its own
 * in its folder, augmenting `EventMap`, and names them in its module's `events`). Every payload has
 * `user` (null when no account is known), `guard`, `ip`, `userAgent`, `requestId` and `at`; none
 * ever holds a password, a token, a cookie or a reset link.
 */
import type { HttpContext } from '../http/context.js'
import type { AuthUser } from './types.js'

export interface AuthEventBase {
  user: AuthUser | null
  /** The guard name (`web`, `jwt`). */
  guard: string
  ip: string
  userAgent: string | null
  /** The request's id (`ctx.request.id`), the `request_id` of its log lines. */
  requestId: string
  at: Date
}

/**
 * On `auth:token_issued`/`auth:token_revoked` of a personal access token: `kind: 'personal'`, the
 * token's `name` and `abilities` (comma-separated). Never its value. Absent for JWTs.
 */
export interface PersonalTokenDetail {
  kind?: 'personal'
  name?: string
  abilities?: string
  /** How many tokens ended (`POST /account/tokens/revoke-all`: `name` is `*`). */
  count?: number
}

/** What an event that added a way in added: an inventory kind and the item's id. */
export interface AddedItem {
  kind: string
  id: string
}

export interface AuthEvents {
  /**
   * `knownDevice` (web guard, password logins): whether the request carried this account's
   * device cookie, i.e. the browser had logged into it before. Absent where there are no devices.
   */
  'auth:login_succeeded': AuthEventBase & { user: AuthUser; knownDevice?: boolean; method?: string }
  /** `user` is the account when the identifier named one (a wrong password), else null. */
  'auth:login_failed': AuthEventBase
  'auth:throttled': AuthEventBase & { retryAfter: number }
  /**
   * The account's own budget (`GUARDS.throttle.account`, across all IPs) has just been used up:
   * emitted once per window, by the attempt that first went over it. `user` is the account;
   * devices that logged into it before keep their own budget. A listener can e-mail the owner.
   */
  'auth:account_locked': AuthEventBase & { user: AuthUser; retryAfter: number }
  'auth:logout': AuthEventBase & { user: AuthUser }
  'auth:registered': AuthEventBase & { user: AuthUser; method?: string }
  'auth:password_reset_requested': AuthEventBase
  'auth:password_reset': AuthEventBase & { user: AuthUser }
  'auth:token_issued': AuthEventBase & { user: AuthUser } & PersonalTokenDetail
  /**
   * A personal access token was created on `/account/tokens` (page or JSON): `item` is `{ kind:
   * 'personal_tokens', id }`. The owner is mailed (`token_created`) with a "This wasn't me" link.
   */
  'auth:token_created': AuthEventBase & { user: AuthUser; item: AddedItem } & PersonalTokenDetail
  /** `userId` is the token's subject; `user` is not loaded to re-issue. */
  'auth:token_reissued': AuthEventBase & { userId: string }
  /** `user` is null (and `userId` set) when a token was revoked by value (POST /api/revoke). */
  'auth:token_revoked': AuthEventBase & { userId?: string } & PersonalTokenDetail
  /**
   * A token its family had already replaced came back after the reuse window (`DRIVERS.jwt.store
   * = 'table'`): family `familyId` of user `userId` was revoked. The owner is mailed (`token_reuse`).
   */
  'auth:token_reuse_detected': AuthEventBase & { userId: string; familyId: string }
  /** The address in `email` is now verified (registration's, or a changed one). */
  'auth:email_verified': AuthEventBase & { user: AuthUser; email: string }
  /** Changed on the account page with the current password (a reset is `auth:password_reset`). */
  'auth:password_changed': AuthEventBase & { user: AuthUser }
  /** `from` was the address before; `user` already holds the new one. */
  'auth:email_changed': AuthEventBase & { user: AuthUser; from: string; to: string }
  /** A replaced "remember me" token came back: that device's logins were ended (likely theft). */
  'auth:remember_reuse': AuthEventBase & { user: AuthUser }
  /** One login ended from the devices page (`device` is the login's id), or every other one (`device: 'others'`). */
  'auth:device_revoked': AuthEventBase & { user: AuthUser; device: string; count: number }
  /** `user` no longer exists in the database; `userId` is its former key. */
  'auth:account_deleted': AuthEventBase & { user: AuthUser; userId: string }
  /** "This wasn't me": every login and token of `user` ended, and a reset link sent. */
  'auth:secured': AuthEventBase & { user: AuthUser }
}

declare module '../events/event-map.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface EventMap extends AuthEvents {}
}

/** The fields every auth event carries, taken from the request. */
export function eventBase<U extends AuthUser | null>(ctx: HttpContext, guard: string, user: U): AuthEventBase & { user: U } {
  const { request } = ctx
  return { user, guard, ip: request.ip(), userAgent: request.header('user-agent') ?? null, requestId: request.id, at: new Date() }
}
