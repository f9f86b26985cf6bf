/**
 * @module auth/organizations/events
 * The organisations feature's events (audited: each becomes a row of `auth_events`, and the
 * organisation page lists its own as its activity). Every payload is an `AuthEventBase` (`user`
 * is the actor) with the organisation's id and slug; none carries an invitation's token.
 */
import type { AuthEventBase } from '../events.js'
import type { AuthUser } from '../types.js'

interface OrganizationEvent extends AuthEventBase {
  user: AuthUser
  /** The organisation's id, as text. */
  organizationId: string
  slug: string
}

export interface OrganizationEvents {
  'auth:organization_created': OrganizationEvent & { name: string }
  'auth:organization_deleted': OrganizationEvent & { name: string }
  /** An invitation sent (`invitationId` its row; the address is not kept in the audit log). */
  'auth:member_invited': OrganizationEvent & { invitationId: string; role: string }
  /** `user` accepted an invitation (`invitationId`) and joined with `role`. */
  'auth:member_joined': OrganizationEvent & { invitationId: string; role: string }
  /** `memberId`'s role went from `from` to `to`. */
  'auth:member_role_changed': OrganizationEvent & { memberId: string; from: string; to: string }
  /** `memberId` is no longer a member: removed by `user`, or left (`left: true`, `memberId` is `user`'s). */
  'auth:member_removed': OrganizationEvent & { memberId: string; role: string; left: boolean }
}

export const ORGANIZATION_EVENT_NAMES: readonly (keyof OrganizationEvents)[] = [
  'auth:organization_created',
  'auth:organization_deleted',
  'auth:member_invited',
  'auth:member_joined',
  'auth:member_role_changed',
  'auth:member_removed',
]

declare module '../../events/event-map.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface EventMap extends OrganizationEvents {}
}
