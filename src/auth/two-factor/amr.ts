/**
 * @module auth/two-factor/amr
 * How a web login was made, as RFC 8176 authentication method references kept in the session:
 * `['pwd']` (a password), `['pwd', 'otp']` (a password and a TOTP or recovery code),
 * `['webauthn']` (a passkey). The `mfa` middleware reads it; issued JWTs carry the same `amr`.
 */
import type { HttpContext } from '../../http/context.js'

/** Session key of the login's methods. */
export const AMR_SESSION_KEY = 'auth.amr'

/** Session key: where the step-up on `/two-factor-challenge` sends the user once done. */
export const MFA_INTENDED = 'auth.mfa_intended'

/** The methods that count as a second factor. */
const SECOND_FACTORS = new Set(['otp', 'webauthn'])

export function setSessionAmr(ctx: HttpContext, amr: string[]): void {
  if (ctx.hasSession) ctx.session.put(AMR_SESSION_KEY, amr)
}

export function sessionAmr(ctx: HttpContext): string[] {
  if (!ctx.hasSession) return []
  const amr = ctx.session.get<unknown>(AMR_SESSION_KEY)
  return Array.isArray(amr) ? amr.filter((x): x is string => typeof x === 'string') : []
}

/** Whether `amr` includes a second factor (a one-time code or a passkey). */
export function hasSecondFactor(amr: readonly string[]): boolean {
  return amr.some((method) => SECOND_FACTORS.has(method))
}
