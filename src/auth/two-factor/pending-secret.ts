/**
 * @module auth/two-factor/pending-secret
 * The TOTP secret of an unfinished enrolment belongs to the session that started it: kept in that
 * session, encrypted with APP_KEY and bound to the user, so a reload of `/account/two-factor`
 * shows the same QR code. It is part of the login's session state (the web guard forgets it when
 * the session meets another login), is never written to the account before a code confirms it,
 * and no other session, login or revocation ever sees it: nobody can seed the secret a user will
 * confirm.
 */
import type { HttpContext } from '../../http/context.js'
import type { TwoFactor } from './two-factor.js'

/** Session key: the sealed secret of this login's unfinished TOTP enrolment. */
export const TOTP_PENDING_KEY = 'auth.two_factor_pending'

/** The session's unfinished enrolment secret for `userId`, or null. */
export function pendingSecretOf(ctx: HttpContext, twoFactor: TwoFactor, userId: unknown): string | null {
  if (!ctx.hasSession) return null
  return twoFactor.openFromSession('pending', ctx.session.get<unknown>(TOTP_PENDING_KEY), userId)
}

/** The session's unfinished enrolment secret for `userId`; a new one (kept) when there is none. */
export function startPendingSecret(ctx: HttpContext, twoFactor: TwoFactor, userId: unknown): string {
  const kept = pendingSecretOf(ctx, twoFactor, userId)
  if (kept !== null) return kept
  const secret = twoFactor.newSecret()
  if (ctx.hasSession) ctx.session.put(TOTP_PENDING_KEY, twoFactor.sealForSession('pending', secret, userId))
  return secret
}

/** Ends the session's unfinished enrolment (confirmed, or no longer wanted). */
export function forgetPendingSecret(ctx: HttpContext): void {
  if (ctx.hasSession && ctx.session.has(TOTP_PENDING_KEY)) ctx.session.forget(TOTP_PENDING_KEY)
}

/** Session key: recovery codes just made, sealed, waiting for the one page view that shows them. */
export const NEW_CODES_KEY = 'auth.two_factor_new_codes'

/**
 * Keeps freshly made recovery codes for the page the POST redirects to. Only this login's session
 * holds them (encrypted), and only until that page is shown once.
 */
export function keepNewCodes(ctx: HttpContext, twoFactor: TwoFactor, userId: unknown, codes: string[]): void {
  if (ctx.hasSession) ctx.session.put(NEW_CODES_KEY, twoFactor.sealForSession('codes', JSON.stringify(codes), userId))
}

/** The recovery codes waiting to be shown, removed from the session (shown once), or null. */
export function takeNewCodes(ctx: HttpContext, twoFactor: TwoFactor, userId: unknown): string[] | null {
  if (!ctx.hasSession || !ctx.session.has(NEW_CODES_KEY)) return null
  const sealed = ctx.session.get<unknown>(NEW_CODES_KEY)
  ctx.session.forget(NEW_CODES_KEY)
  const opened = twoFactor.openFromSession('codes', sealed, userId)
  if (opened === null) return null
  try {
    const codes: unknown = JSON.parse(opened)
    return Array.isArray(codes) && codes.every((c) => typeof c === 'string') ? codes : null
  } catch {
    return null
  }
}
