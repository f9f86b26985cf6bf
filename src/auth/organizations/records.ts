/**
 * @module auth/organizations/records
 * The rows of the feature's tables as the app sees them (`ctx.organization`, `ctx.membership`).
 */

export const ORGANIZATIONS_TABLE = 'organizations'
export const MEMBERS_TABLE = 'organization_members'
export const INVITATIONS_TABLE = 'organization_invitations'

export interface OrganizationRecord {
  id: number
  name: string
  slug: string
  createdAt: Date | null
}

export interface MembershipRecord {
  organization_id: number
  user_id: string
  role: string
  /** The role's abilities (`'*'` covers every one). */
  abilities: readonly string[]
}

/** An organisation and the user's membership of it, read together in one indexed look-up. */
export interface CurrentOrganization {
  organization: OrganizationRecord
  membership: MembershipRecord
}
