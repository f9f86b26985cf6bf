import type { HttpContext } from 'trowel'
import { MemberForms, OrganizationForms } from 'trowel/auth'

export class OrganizationsController {
  /** GET /organizations: my organisations, and the create form. */
  index(ctx: HttpContext) {
    return OrganizationForms.index(ctx)
  }

  /** POST /organizations: creates one (I am its owner) and makes it current. */
  store(ctx: HttpContext) {
    return OrganizationForms.store(ctx)
  }

  /** GET /organizations/@slug: members, roles, pending invitations, activity (members only). */
  show(ctx: HttpContext) {
    return OrganizationForms.show(ctx)
  }

  /** POST /organizations/@slug: renames it (organization:update). */
  update(ctx: HttpContext) {
    return OrganizationForms.update(ctx)
  }

  /** POST /organizations/@slug/invitations: mails an invitation (members:invite). */
  invite(ctx: HttpContext) {
    return MemberForms.invite(ctx)
  }

  /** POST /organizations/@slug/invitations/@id/revoke */
  revokeInvitation(ctx: HttpContext) {
    return MemberForms.revokeInvitation(ctx)
  }

  /** POST /organizations/@slug/members/@id/role (members:role) */
  changeRole(ctx: HttpContext) {
    return MemberForms.changeRole(ctx)
  }

  /** POST /organizations/@slug/members/@id/remove (members:remove) */
  removeMember(ctx: HttpContext) {
    return MemberForms.remove(ctx)
  }

  /** POST /organizations/@slug/leave */
  leave(ctx: HttpContext) {
    return OrganizationForms.leave(ctx)
  }

  /** POST /organizations/@slug/switch: makes it the current organisation. */
  switch(ctx: HttpContext) {
    return OrganizationForms.switch(ctx)
  }

  /** POST /organizations/@slug/delete (owners; behind password.confirm) */
  destroy(ctx: HttpContext) {
    return OrganizationForms.destroy(ctx)
  }
}
