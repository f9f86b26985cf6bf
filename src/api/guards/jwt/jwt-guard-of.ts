/**
 * @module api/guards/jwt/jwt-guard-of
 * This request's `jwt` guard, typed: the one place the API names the guard and its class (the
 * token routes and the `api` stack's middleware all go through it).
 */
import type { HttpContext } from '../../../http/context.js'
import type { JwtGuard } from './guard.js'

/** The guard ApiProvider registers with `auth.manager.extend`. */
export const JWT_GUARD = 'jwt'

/** This request's instance of the `jwt` guard (built once per request by `ctx.auth`). */
export function jwtGuardOf(ctx: HttpContext): JwtGuard {
  return ctx.auth.resolve<JwtGuard>(JWT_GUARD)
}
