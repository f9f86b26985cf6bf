/**
 * @module auth/organizations
 * Organisations, members, roles and invitations (`organizations` feature): what `trowel/auth` exports of it.
 */
export { OrganizationForms, ORGANIZATION_MESSAGES } from './organization-forms.js'
export { MemberForms, MEMBER_MESSAGES } from './member-forms.js'
export { InvitationForms, INVITATION_MESSAGES } from './invitation-forms.js'
export { OrgMiddleware } from './org-middleware.js'
export { Organizations, CURRENT_ORGANIZATION_KEY, ORGANIZATION_HEADER } from './organizations.js'
export { LastOwnerError } from './errors.js'
export { Roles } from './roles.js'
export { slugify } from './slug.js'
export type { OrganizationEvents } from './events.js'
