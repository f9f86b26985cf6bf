/**
 * @module auth/authorization/request-gate
 * Authorization inside a request: what `ctx.auth.can()` / `ctx.auth.authorize()` (see auth.ts)
 * ask, and the optional `ctx.organization` / `ctx.membership` that the organisations feature sets
 * (plain properties, typed here; gates receive `ctx.organization ?? null`).
 */
import type { HttpContext } from '../../http/context.js'
import type { AuthUser } from '../types.js'
import { gateOf } from './gate.js'
import type { MembershipRecord, OrganizationRecord } from './types.js'

declare module '../../http/context.js' {
  interface HttpContext {
    /** The current organisation (set by the organisations feature's `org` middleware). */
    organization?: OrganizationRecord
    /** The current user's membership of `organization`. */
    membership?: MembershipRecord
  }
}

/** Whether `user` (null: a guest) may do `ability` with `args` in this request. */
export function requestAllows(ctx: HttpContext, user: AuthUser | null, ability: string, args: readonly unknown[]): Promise<boolean> {
  return gateOf(ctx.app).allows({ user, organization: ctx.organization ?? null }, ability, args, ctx)
}
