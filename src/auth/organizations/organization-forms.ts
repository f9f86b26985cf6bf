/**
 * @module auth/organizations/organization-forms
 * The organisation pages (logged in), served by the generated `OrganizationsController`:
 * - `GET /organizations`: mine, and a create form; `POST /organizations` (`name`): the creator is
 *   `owner`, the new organisation becomes current; 302 `/organizations/<slug>` (JSON 201
 *   `{"data": {"id", "name", "slug", "role"}}`).
 * - `GET /organizations/@slug`: members, roles, pending invitations (never their tokens) and the
 *   activity; `POST /organizations/@slug` renames (`organization:update`; the slug stays).
 * - `POST /organizations/@slug/switch`: the session's current organisation.
 * - `POST /organizations/@slug/leave`: the last owner cannot (409 `E_CONFLICT`).
 * - `POST /organizations/@slug/delete`: owners only, behind `password.confirm`.
 * A non-member gets 404 everywhere under `/organizations/@slug`; a member without the ability 403.
 */
import type { HttpContext } from '../../http/context.js'
import { ForbiddenError } from '../../http/errors.js'
import type { AuthUser } from '../types.js'
import { OWNER_ROLE } from './config.js'
import { LastOwnerError } from './errors.js'
import { organizations } from './install.js'
import { answersJson, done, organizationPage, refuse } from './page-helpers.js'
import { organizationName } from './organization-store.js'
import { CURRENT_ORGANIZATION_KEY } from './organizations.js'

export const ORGANIZATION_MESSAGES = {
  created: 'Organisation created.',
  renamed: 'Organisation renamed.',
  switched: (name: string) => `You are now working in ${name}.`,
  left: (name: string) => `You left ${name}.`,
  deleted: (name: string) => `${name} was deleted.`,
  ownerOnly: 'Only an owner can delete the organisation.',
} as const

function iso(at: Date | null): string {
  return at ? at.toISOString() : ''
}

export const OrganizationForms = {
  /** GET /organizations */
  async index(ctx: HttpContext): Promise<unknown> {
    const service = organizations(ctx)
    const user = await ctx.auth.authenticate<AuthUser>()
    const mine = await service.store.forUser(user.getKey() as string | number)
    const currentId = ctx.hasSession ? Number(ctx.session.get(CURRENT_ORGANIZATION_KEY)) : NaN
    const list = mine.map((o) => ({ id: o.id, name: o.name, slug: o.slug, role: o.role, current: o.id === currentId }))
    if (answersJson(ctx)) return { data: list }
    return ctx.view.render('organizations/index', { organizations: list })
  },

  /** POST /organizations */
  async store(ctx: HttpContext): Promise<unknown> {
    const service = organizations(ctx)
    const user = await ctx.auth.authenticate<AuthUser>()
    const name = organizationName(ctx.request.post('name'))
    const created = await service.store.create(user.getKey() as string | number, name)
    const { organization } = created
    service.switchTo(ctx, organization)
    service.emit(ctx, 'auth:organization_created', user, organization, { name: organization.name })
    const data = { id: organization.id, name: organization.name, slug: organization.slug, role: OWNER_ROLE }
    return done(ctx, ORGANIZATION_MESSAGES.created, `/organizations/${organization.slug}`, data, 201)
  },

  /** GET /organizations/@slug */
  async show(ctx: HttpContext): Promise<unknown> {
    const { service, organization, membership, user } = await organizationPage(ctx)
    const [members, invitations] = await Promise.all([service.store.members(organization.id), service.invitations.pendingFor(organization.id)])
    const role = membership.role
    const can = (ability: string) => service.roles.allows(role, ability)
    const data = {
      organization: { id: organization.id, name: organization.name, slug: organization.slug },
      role,
      members: members.map((m) => ({ id: m.userId, name: m.name, email: m.email, role: m.role, joined_at: iso(m.joinedAt) })),
      invitations: invitations.map((i) => ({ id: i.id, email: i.email, role: i.role, expires_at: iso(i.expiresAt) })),
    }
    ctx.response.header('Cache-Control', 'no-store')
    if (answersJson(ctx)) return { data }
    const activity = await service.activity(organization.id)
    const names = await service.store.names(activity.flatMap((a) => [a.userId ?? '', String(a.details.memberId ?? '')]))
    return ctx.view.render('organizations/show', {
      ...data,
      me: String(user.getKey()),
      roles: service.roles.names(),
      assignable: service.roles.names().filter((r) => service.roles.within(r, role)),
      abilities: { update: can('organization:update'), invite: can('members:invite'), remove: can('members:remove'), role: can('members:role'), delete: role === OWNER_ROLE },
      activity: activity.map((a) => ({ ...a, who: a.userId ? (names.get(a.userId) ?? 'A former member') : 'Someone', memberName: names.get(String(a.details.memberId ?? '')) ?? 'a former member', when: iso(a.at) })),
    })
  },

  /** POST /organizations/@slug (rename) */
  async update(ctx: HttpContext): Promise<unknown> {
    const { service, organization } = await organizationPage(ctx, 'organization:update')
    const name = organizationName(ctx.request.post('name'))
    await service.store.rename(organization.id, name)
    return done(ctx, ORGANIZATION_MESSAGES.renamed, `/organizations/${organization.slug}`, { id: organization.id, name, slug: organization.slug })
  },

  /** POST /organizations/@slug/switch */
  async switch(ctx: HttpContext): Promise<unknown> {
    const { service, organization, membership } = await organizationPage(ctx)
    service.switchTo(ctx, organization)
    return done(ctx, ORGANIZATION_MESSAGES.switched(organization.name), `/organizations/${organization.slug}`, { id: organization.id, name: organization.name, slug: organization.slug, role: membership.role })
  },

  /** POST /organizations/@slug/leave */
  async leave(ctx: HttpContext): Promise<unknown> {
    const { service, organization, user } = await organizationPage(ctx)
    const userId = user.getKey() as string | number
    let role: string
    try {
      ;({ role } = await service.store.leave(organization.id, userId))
    } catch (error) {
      if (error instanceof LastOwnerError) return refuse(ctx, error, `/organizations/${organization.slug}`)
      throw error
    }
    if (ctx.hasSession && Number(ctx.session.get(CURRENT_ORGANIZATION_KEY)) === organization.id) ctx.session.forget(CURRENT_ORGANIZATION_KEY)
    service.emit(ctx, 'auth:member_removed', user, organization, { memberId: String(userId), role, left: true })
    return done(ctx, ORGANIZATION_MESSAGES.left(organization.name), '/organizations')
  },

  /** POST /organizations/@slug/delete (owners; behind password.confirm) */
  async destroy(ctx: HttpContext): Promise<unknown> {
    const { service, organization, membership, user } = await organizationPage(ctx)
    if (membership.role !== OWNER_ROLE) throw new ForbiddenError(ORGANIZATION_MESSAGES.ownerOnly)
    await service.store.delete(organization.id)
    if (ctx.hasSession && Number(ctx.session.get(CURRENT_ORGANIZATION_KEY)) === organization.id) ctx.session.forget(CURRENT_ORGANIZATION_KEY)
    service.emit(ctx, 'auth:organization_deleted', user, organization, { name: organization.name })
    return done(ctx, ORGANIZATION_MESSAGES.deleted(organization.name), '/organizations')
  },
}
