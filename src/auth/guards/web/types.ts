/**
 * @module auth/guards/web/types
 * What the web guard is built from.
 */
import type { GuardDependencies } from '../base-guard.js'
import type { AuthUser } from '../../types.js'
import type { LoginTokenRepository } from './login-token-repository.js'
import type { RememberTokenRepository } from './remember-token-repository.js'
import type { DeviceRevocations } from '../../inventory/device-cookies.js'

/** The login cookie: a signed, HttpOnly, SameSite=Lax session cookie holding an opaque token. */
export const AUTH_COOKIE = 'trowel_auth'

/** The "remember me" cookie: signed, HttpOnly, SameSite=Lax, Max-Age `GUARDS.web.remember_lifetime`; holds `<series>.<token>`. */
export const REMEMBER_COOKIE = 'trowel_remember'

export interface WebGuardDependencies<User extends AuthUser> extends GuardDependencies<User> {
  /** The server side of logins: one row per device, holding only the token's SHA-256. */
  tokens: LoginTokenRepository
  /** "Remember me" series (`remember_tokens`); absent or null when the `remember_me` feature is off. */
  remember?: RememberTokenRepository | null
  /** When each user's device cookies were revoked; absent: a valid cookie is always a known device. */
  devices?: DeviceRevocations
  /** The features' session keys of one login (their modules' `loginSessionKeys`), forgotten with the login's own. */
  loginSessionKeys?: readonly string[]
}
