/**
 * @module auth/organizations/invitation-forms
 * The mailed invitation link (served by the generated `InvitationsController`):
 * - `GET /invitations/@token` (and HEAD) changes nothing: the organisation, the role and the
 *   invited address, with an Accept button for the right user; a visitor is asked to log in or
 *   register with that address, then comes back (`?next=`); an unknown token is 404, an expired,
 *   used or revoked one a page that says so (410).
 * - `POST /invitations/@token` accepts it for a logged-in user whose address is the invited one
 *   (verified, with `email_verification` on): the membership is made, the organisation becomes
 *   current, 302 `/organizations/<slug>` (JSON `{"data": {"id", "name", "slug", "role"}}`).
 *   Logged in with another address: 403 and the invitation stays usable. Of concurrent accepts,
 *   exactly one makes the membership; the others see a used invitation (JSON 422, `errors.token`).
 */
import type { HttpContext } from '../../http/context.js'
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../../http/errors.js'
import { normalizeEmail } from '../email.js'
import { refuseUnverified } from '../middleware/verified-middleware.js'
import type { AuthUser } from '../types.js'
import { organizations } from './install.js'
import type { InvitationView } from './invitation-store.js'
import { answersJson, done } from './page-helpers.js'

export const INVITATION_MESSAGES = {
  expired: 'This invitation has expired. Ask for a new one.',
  accepted: 'This invitation has already been used.',
  revoked: 'This invitation was withdrawn.',
  otherAddress: (email: string) => `This invitation is for ${email}. Log out, then log in or register with that address to accept it.`,
  joined: (name: string) => `You joined ${name}.`,
} as const

function noStore(ctx: HttpContext): void {
  ctx.response.header('Cache-Control', 'no-store')
  ctx.response.header('Referrer-Policy', 'no-referrer')
}

function unusable(invitation: InvitationView): string | null {
  if (invitation.state === 'pending') return null
  return INVITATION_MESSAGES[invitation.state]
}

async function userAddress(ctx: HttpContext): Promise<{ user: AuthUser; email: string } | null> {
  if (!(await ctx.auth.check())) return null
  const user = ctx.auth.user<AuthUser>()!
  const column = ctx.auth.manager.resolved.model?.authColumn ?? 'email'
  return { user, email: normalizeEmail((user as unknown as Record<string, unknown>)[column]) }
}

export const InvitationForms = {
  /** GET /invitations/@token */
  async show(ctx: HttpContext): Promise<unknown> {
    noStore(ctx)
    const token = String(ctx.params.token ?? '')
    const invitation = await organizations(ctx).invitations.findByToken(token)
    if (!invitation) throw new NotFoundError('This invitation does not exist.')
    const problem = unusable(invitation)
    const who = await userAddress(ctx)
    const data = { organization: invitation.organizationName, role: invitation.role, email: invitation.email, state: invitation.state }
    if (answersJson(ctx)) return { data }
    if (problem) ctx.response.status(410)
    else if (who && who.email !== invitation.email) ctx.response.status(403)
    const next = encodeURIComponent(`/invitations/${token}`)
    return ctx.view.render('organizations/invitation', {
      ...data,
      token,
      problem,
      loggedIn: Boolean(who),
      otherAddress: who && who.email !== invitation.email ? INVITATION_MESSAGES.otherAddress(invitation.email) : null,
      next,
      registration: ctx.auth.manager.resolved.features.has('registration'),
    })
  },

  /** POST /invitations/@token */
  async accept(ctx: HttpContext): Promise<unknown> {
    noStore(ctx)
    const service = organizations(ctx)
    const token = String(ctx.params.token ?? '')
    const page = `/invitations/${token}`
    const invitation = await service.invitations.findByToken(token)
    if (!invitation) throw new NotFoundError('This invitation does not exist.')
    const gone = (message: string): unknown => {
      if (answersJson(ctx)) throw new ValidationError({ token: [message] })
      return ctx.response.redirect(page)
    }
    const problem = unusable(invitation)
    if (problem) return gone(problem)
    const who = await userAddress(ctx)
    if (!who) {
      if (answersJson(ctx)) throw new UnauthorizedError()
      return ctx.response.redirect(`/login?next=${encodeURIComponent(page)}`)
    }
    if (who.email !== invitation.email) throw new ForbiddenError(INVITATION_MESSAGES.otherAddress(invitation.email))
    const unverified = refuseUnverified(ctx, who.user)
    if (unverified !== undefined) return unverified
    if (!(await service.invitations.accept(invitation, who.user.getKey() as string | number))) return gone(INVITATION_MESSAGES.accepted)
    const current = await service.store.findById(invitation.organizationId, who.user.getKey() as string | number)
    if (!current) return gone(INVITATION_MESSAGES.revoked)
    const { organization, membership } = current
    service.switchTo(ctx, organization)
    service.emit(ctx, 'auth:member_joined', who.user, organization, { invitationId: String(invitation.id), role: membership.role })
    return done(ctx, INVITATION_MESSAGES.joined(organization.name), `/organizations/${organization.slug}`, { id: organization.id, name: organization.name, slug: organization.slug, role: membership.role })
  },
}
