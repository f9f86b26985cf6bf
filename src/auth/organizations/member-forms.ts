/**
 * @module auth/organizations/member-forms
 * Members and invitations of an organisation (served by the generated `OrganizationsController`):
 * - `POST /organizations/@slug/invitations` (`email`, `role`; `members:invite`, the role within
 *   the inviter's): mails `<APP_URL>/invitations/<token>`, replacing the address's pending one; a
 *   member's address is 422; one slot of the organisation's `invite` budget (429 past it). The
 *   token is never in the answer (JSON 201 `{"data": {"id", "email", "role", "expires_at"}}`).
 * - `POST /organizations/@slug/invitations/@id/revoke` (`members:invite`, the role within theirs).
 * - `POST /organizations/@slug/members/@id/role` (`role`; `members:role`) and
 *   `POST /organizations/@slug/members/@id/remove` (`members:remove`): `@id` is the user id, looked
 *   up inside this organisation only (404 otherwise); the rules of `OrganizationStore`.
 */
import type { HttpContext } from '../../http/context.js'
import { ForbiddenError, NotFoundError, TooManyRequestsError, ValidationError } from '../../http/errors.js'
import { validate } from '../../validation/index.js'
import { normalizeEmail } from '../email.js'
import { AUTH_MESSAGES } from '../messages.js'
import { LastOwnerError } from './errors.js'
import { done, organizationPage, refuse, text } from './page-helpers.js'
import { memberIdParam } from './organization-store.js'

export const MEMBER_MESSAGES = {
  invited: (email: string) => `Invitation sent to ${email}.`,
  alreadyMember: 'This address belongs to a member already.',
  revoked: 'Invitation revoked.',
  roleChanged: 'Role changed.',
  removed: 'Member removed.',
  roleNotAllowed: 'You can only invite with a role whose abilities you have yourself.',
} as const

export const MemberForms = {
  /** POST /organizations/@slug/invitations */
  async invite(ctx: HttpContext): Promise<unknown> {
    const page = await organizationPage(ctx, 'members:invite')
    const { service, organization, membership, user } = page
    const back = `/organizations/${organization.slug}`
    const input = { email: text(ctx.request.post('email')), role: text(ctx.request.post('role')) }
    await validate(input, { email: 'required|email|max:255', role: 'required|string' }, { back })
    if (!service.roles.has(input.role)) throw new ValidationError({ role: [`The role must be one of: ${service.roles.names().join(', ')}.`] }, undefined, { back })
    if (!service.roles.within(input.role, membership.role)) throw new ForbiddenError(MEMBER_MESSAGES.roleNotAllowed)
    const email = normalizeEmail(input.email)
    if (await service.invitations.isMemberAddress(organization.id, email, service.users())) throw new ValidationError({ email: [MEMBER_MESSAGES.alreadyMember] }, undefined, { back })
    const budget = service.inviteBudget
    const wait = await budget.take(budget.key(String(organization.id)))
    if (wait !== null) {
      return refuse(ctx, new TooManyRequestsError(wait, AUTH_MESSAGES.throttled(Math.max(1, Math.ceil(wait)))), back)
    }
    const { id, token } = await service.invitations.create(organization.id, email, input.role, user.getKey() as string | number, service.config.invitationDays)
    const inviter = String((user as unknown as Record<string, unknown>).name ?? '') || 'A member'
    service.mailInvitation(ctx, email, token, { organization: organization.name, role: input.role, inviter, days: service.config.invitationDays })
    service.emit(ctx, 'auth:member_invited', user, organization, { invitationId: String(id), role: input.role })
    const expires = new Date(Date.now() + service.config.invitationDays * 86_400_000).toISOString()
    return done(ctx, MEMBER_MESSAGES.invited(email), back, { id, email, role: input.role, expires_at: expires }, 201)
  },

  /** POST /organizations/@slug/invitations/@id/revoke */
  async revokeInvitation(ctx: HttpContext): Promise<unknown> {
    const { service, organization, membership } = await organizationPage(ctx, 'members:invite')
    const invitation = await service.invitations.findPending(organization.id, ctx.params.id)
    if (!invitation) throw new NotFoundError()
    if (!service.roles.within(invitation.role, membership.role)) throw new ForbiddenError()
    if (!(await service.invitations.revoke(organization.id, invitation.id))) throw new NotFoundError()
    return done(ctx, MEMBER_MESSAGES.revoked, `/organizations/${organization.slug}`, { id: invitation.id })
  },

  /** POST /organizations/@slug/members/@id/role */
  async changeRole(ctx: HttpContext): Promise<unknown> {
    const { service, organization, user } = await organizationPage(ctx, 'members:role')
    const back = `/organizations/${organization.slug}`
    const targetId = memberIdParam(ctx.params.id)
    if (targetId === null) throw new NotFoundError()
    const to = text(ctx.request.post('role'))
    let changed: { from: string; to: string }
    try {
      changed = await service.store.changeRole(organization.id, user.getKey() as string | number, targetId, to)
    } catch (error) {
      if (error instanceof LastOwnerError) return refuse(ctx, error, back)
      if (error instanceof ValidationError) throw new ValidationError(error.errors, undefined, { back })
      throw error
    }
    if (changed.from !== changed.to) service.emit(ctx, 'auth:member_role_changed', user, organization, { memberId: String(targetId), from: changed.from, to: changed.to })
    return done(ctx, MEMBER_MESSAGES.roleChanged, back, { id: String(targetId), role: changed.to })
  },

  /** POST /organizations/@slug/members/@id/remove */
  async remove(ctx: HttpContext): Promise<unknown> {
    const { service, organization, user } = await organizationPage(ctx, 'members:remove')
    const back = `/organizations/${organization.slug}`
    const targetId = memberIdParam(ctx.params.id)
    if (targetId === null) throw new NotFoundError()
    let removed: { role: string }
    try {
      removed = await service.store.remove(organization.id, user.getKey() as string | number, targetId)
    } catch (error) {
      if (error instanceof LastOwnerError) return refuse(ctx, error, back)
      throw error
    }
    service.emit(ctx, 'auth:member_removed', user, organization, { memberId: String(targetId), role: removed.role, left: false })
    return done(ctx, MEMBER_MESSAGES.removed, back, { id: String(targetId) })
  },
}
