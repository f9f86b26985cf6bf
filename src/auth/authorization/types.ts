/**
 * @module auth/authorization/types
 * The shapes authorization works with. `OrganizationRecord` and `MembershipRecord` are what the
 * organisations feature puts on `ctx.organization` / `ctx.membership`; it may add fields to them by
 * augmenting these interfaces (`declare module`).
 */
import type { AuthUser } from '../types.js'
import type { HttpContext } from '../../http/context.js'

/** An organisation as a gate sees it (the current one, `ctx.organization`). */
export interface OrganizationRecord {
  id: unknown
  name: string
  slug: string
}

/** The current user's membership of the current organisation (`ctx.membership`). */
export interface MembershipRecord {
  organization_id: unknown
  user_id: unknown
  role: string
}

/**
 * A gate: true allows, anything else denies (a truthy non-boolean denies too). The user is never
 * null unless the gate was defined with `{ guests: true }`.
 */
export type GateCheck<User = any> = (user: User, organization: OrganizationRecord | null, ...args: any[]) => boolean | Promise<boolean>

export interface GateOptions {
  /** Call the gate for guests too (with `user` null); otherwise a guest is denied without calling it. */
  guests?: boolean
}

/** A model class (the first argument's class picks the policy). */
export type ModelClass = abstract new (...args: any[]) => unknown

/** A policy: methods named after abilities, each called like a gate `(user, organization, model, ...rest)`. */
export type PolicyClass = new (...args: any[]) => object

/**
 * The role abilities of the request's user in the current organisation (`*` covers all), or null
 * when there is no membership. Registered by the organisations feature.
 */
export type AbilitySource = (ctx: HttpContext) => Promise<readonly string[] | null>

/** Who is asking: the user (null for a guest) and the organisation the question is about. */
export interface GateSubject {
  user: AuthUser | null
  organization: OrganizationRecord | null
}
