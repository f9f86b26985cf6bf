/**
 * @module auth/guards/web/types
 * What the web guard is built from.
 */
import type { GuardDependencies } from '../base-guard.js'
import type { AuthUser } from '../../types.js'
import type { LoginTokenRepository } from './login-token-repository.js'

/** The login cookie: a signed, HttpOnly, SameSite=Lax session cookie holding an opaque token. */
export const AUTH_COOKIE = 'trowel_auth'

export interface WebGuardDependencies<User extends AuthUser> extends GuardDependencies<User> {
  /** The server side of logins: one row per device, holding only the token's SHA-256. */
  tokens: LoginTokenRepository
}
