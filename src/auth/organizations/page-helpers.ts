/**
 * @module auth/organizations/page-helpers
 * What every page under `/organizations/@slug` does first: the logged-in user, and the organisation
 * `@slug` with their membership (one indexed read; 404 when they are not a member, as when it does
 * not exist), then the ability the action needs (403 `E_FORBIDDEN`). And how each action answers:
 * a 302 with a flashed message, or JSON `{"data": {..., "redirect"}}`.
 */
import type { HttpContext } from '../../http/context.js'
import { ForbiddenError, NotFoundError } from '../../http/errors.js'
import type { HttpError } from '../../http/http-error.js'
import type { AuthUser } from '../types.js'
import { organizations } from './install.js'
import type { Organizations } from './organizations.js'
import type { CurrentOrganization } from './records.js'

export interface OrganizationPage extends CurrentOrganization {
  user: AuthUser
  service: Organizations
}

/** Whether the request answers JSON (Accept, or a JSON body). */
export function answersJson(ctx: HttpContext): boolean {
  return ctx.request.wantsJson() || ctx.request.isJson() || !ctx.hasSession
}

/** The user, and `@slug` with their membership; 404 for a non-member; 403 without `ability`. */
export async function organizationPage(ctx: HttpContext, ability?: string): Promise<OrganizationPage> {
  const service = organizations(ctx)
  const user = await ctx.auth.authenticate<AuthUser>()
  const found = await service.store.findBySlug(ctx.params.slug, user.getKey() as string | number)
  if (!found) throw new NotFoundError()
  ctx.organization = found.organization
  ctx.membership = found.membership
  if (ability && !service.roles.allows(found.membership.role, ability)) throw new ForbiddenError()
  return { ...found, user, service }
}

/** A 302 to `to` with `message` flashed, or JSON `{"data": {...data, redirect: to}, "message"}`. */
export function done(ctx: HttpContext, message: string, to: string, data: Record<string, unknown> = {}, status = 200): unknown {
  if (answersJson(ctx)) {
    ctx.response.status(status)
    return { data: { ...data, redirect: to }, message }
  }
  ctx.session.flash('success', message)
  return ctx.response.redirect(to)
}

/** A refusal shown on the page it came from (pages), or thrown (JSON). */
export function refuse(ctx: HttpContext, error: HttpError, to: string): unknown {
  if (answersJson(ctx)) throw error
  ctx.session.flash('error', error.message)
  return ctx.response.redirect(to)
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
