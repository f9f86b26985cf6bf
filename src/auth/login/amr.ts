/**
 * @module auth/login/amr
 * The login's state in the session, owned by the login flow: how the login was made, as RFC 8176
 * authentication method references (`['pwd']` a password, `['pwd', 'otp']` a password and a TOTP
 * or recovery code, `['webauthn']` a passkey, `['email']` an e-mailed link or code, `[]` the app's
 * own login), when a second factor was last given, and the login held back for its second step
 * (`PENDING_LOGIN_KEY`). The `mfa` middleware reads the amr; issued JWTs carry the same `amr`.
 */
import type { HttpContext } from '../../http/context.js'

/** Session key of the login's methods. */
export const AMR_SESSION_KEY = 'auth.amr'

/** Session key: where the step-up on the second step's page sends the user once done. */
export const MFA_INTENDED = 'auth.mfa_intended'

/**
 * Session key: when this login last gave a second factor (epoch ms): a TOTP or recovery code, a
 * passkey, or a first factor just enrolled. A trusted-device mark never sets it, so `mfa.recent`
 * asks such a login for a factor even though its amr says `otp`.
 */
export const SECOND_FACTOR_AT = 'auth.second_factor_at'

/** Session key of the login held back for its second step (kept by the feature that serves the step). */
export const PENDING_LOGIN_KEY = 'auth.pending_login'

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

/** Records that this login has just given a second factor (see SECOND_FACTOR_AT). */
export function markSecondFactor(ctx: HttpContext): void {
  if (ctx.hasSession) ctx.session.put(SECOND_FACTOR_AT, Date.now())
}

/** Whether this login gave a second factor within the last `timeoutMinutes`. */
export function secondFactorRecent(ctx: HttpContext, timeoutMinutes: number): boolean {
  if (!ctx.hasSession) return false
  const at = ctx.session.get<unknown>(SECOND_FACTOR_AT)
  return typeof at === 'number' && Date.now() - at >= 0 && Date.now() - at < timeoutMinutes * 60_000
}
