/**
 * @module auth/organizations/config
 * `GUARDS.organizations` (`{ roles, invitation_days: 7 }` when absent) and the feature's budget of
 * `GUARDS.throttle`: `invite` (invitations sent per organisation, default 20 an hour). Roles map a
 * name to its abilities (`'*'` covers every ability); `owner` must exist and is the creator's role.
 * A mistake stops the app at startup with a message naming the key.
 */
import { AuthConfigError } from '../errors.js'
import type { BudgetLimit } from '../auth-config.js'

export interface OrganizationsConfig {
  /** Each role's abilities. */
  roles: Readonly<Record<string, readonly string[]>>
  /** Days an invitation lives. */
  invitationDays: number
  /** Invitations sent per organisation; null: off. */
  inviteBudget: BudgetLimit | null
}

export const OWNER_ROLE = 'owner'
export const DEFAULT_ROLES: Readonly<Record<string, readonly string[]>> = {
  owner: ['*'],
  admin: ['organization:update', 'members:invite', 'members:remove', 'members:role'],
  member: [],
}
export const DEFAULT_INVITE_BUDGET: BudgetLimit = { attempts: 20, minutes: 60 }
const ROLE_NAME = /^[a-z][a-z0-9_-]{0,31}$/
const ABILITY = /^(\*|[A-Za-z0-9_.:-]{1,100})$/

function resolveRoles(value: unknown): Record<string, readonly string[]> {
  if (value === undefined) return { ...DEFAULT_ROLES }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new AuthConfigError("config/auth.ts: GUARDS.organizations.roles must be { role: ['ability', ...] }.")
  const roles: Record<string, readonly string[]> = {}
  for (const [name, abilities] of Object.entries(value)) {
    if (!ROLE_NAME.test(name)) throw new AuthConfigError(`config/auth.ts: GUARDS.organizations.roles: ${JSON.stringify(name)} is not a role name (lower case letters, digits, _ and -, at most 32).`)
    if (!Array.isArray(abilities) || !abilities.every((a) => typeof a === 'string' && ABILITY.test(a))) {
      throw new AuthConfigError(`config/auth.ts: GUARDS.organizations.roles.${name} must be a list of abilities ('*' for all).`)
    }
    roles[name] = Object.freeze([...new Set(abilities as string[])])
  }
  if (!roles[OWNER_ROLE]) throw new AuthConfigError(`config/auth.ts: GUARDS.organizations.roles must have an "${OWNER_ROLE}" role (the creator's).`)
  return roles
}

function resolveBudget(value: unknown): BudgetLimit | null {
  if (value === undefined) return DEFAULT_INVITE_BUDGET
  if (value === null) return null
  const { attempts, minutes } = (value ?? {}) as { attempts?: unknown; minutes?: unknown }
  if (!Number.isInteger(attempts) || (attempts as number) < 1 || typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes <= 0) {
    throw new AuthConfigError('config/auth.ts: GUARDS.throttle.invite must be { attempts: a whole number from 1, minutes: a positive number } or null.')
  }
  return { attempts: attempts as number, minutes }
}

export function resolveOrganizationsConfig(guards: Record<string, unknown> | undefined): OrganizationsConfig {
  const given = guards?.organizations
  if (given !== undefined && (!given || typeof given !== 'object')) throw new AuthConfigError('config/auth.ts: GUARDS.organizations must be { roles, invitation_days }.')
  const own = (given ?? {}) as Record<string, unknown>
  const days = own.invitation_days
  if (days !== undefined && !(typeof days === 'number' && Number.isFinite(days) && days > 0)) {
    throw new AuthConfigError(`config/auth.ts: GUARDS.organizations.invitation_days must be a positive number of days, got ${JSON.stringify(days)}.`)
  }
  const throttle = (guards?.throttle ?? {}) as Record<string, unknown>
  return {
    roles: Object.freeze(resolveRoles(own.roles)),
    invitationDays: (days as number | undefined) ?? 7,
    inviteBudget: resolveBudget(throttle.invite),
  }
}
