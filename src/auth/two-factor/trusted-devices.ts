/**
 * @module auth/two-factor/trusted-devices
 * "Trust this device for 30 days": a browser that answered the second step with `trust` gets the
 * cookie `trowel_2fa_trusted` (signed with APP_KEY, HttpOnly, SameSite=Lax, Secure over HTTPS, 30
 * days) holding a random token; `user_tokens` keeps only its SHA-256 (purpose `two_factor_trust`,
 * one row per trusted browser). A later password login of that user from that browser skips the
 * second step while the row lives and belongs to that user. The rows end on "Forget trusted
 * devices" (`POST /account/two-factor/forget-devices`), when TOTP is turned off, and with every
 * other login of the user (password reset or change, "This wasn't me", "log out other devices").
 */
import type { HttpContext } from '../../http/context.js'
import type { AuthManager } from '../auth-manager.js'

declare module '../accounts/user-tokens.js' {
  interface UserTokenPurposes {
    /** A browser trusted to skip the second step (not a mailed link). */
    two_factor_trust: true
  }
}

export const TRUST_COOKIE = 'trowel_2fa_trusted'
/** The `user_tokens.purpose` of a trusted browser. */
export const TRUST_PURPOSE = 'two_factor_trust'
/** 30 days, in minutes. */
export const TRUST_MINUTES = 43200

export class TrustedDevices {
  constructor(readonly manager: AuthManager) {}

  /** Marks this browser as trusted by `userId` for 30 days (a row and the cookie). */
  async trust(ctx: HttpContext, userId: unknown): Promise<void> {
    const token = await this.manager.userTokens.create(userId, TRUST_PURPOSE, { minutes: TRUST_MINUTES, replace: false })
    ctx.response.cookie(TRUST_COOKIE, token, { maxAge: TRUST_MINUTES * 60 })
  }

  /**
   * Whether this browser's cookie names a live trust row of `userId`. A cookie that names no live
   * row is cleared; one of another account is left alone (that account may still use it).
   */
  async isTrusted(ctx: HttpContext, userId: unknown): Promise<boolean> {
    const token = ctx.request.cookie(TRUST_COOKIE)
    if (!token) return false
    const row = await this.manager.userTokens.peek(token, TRUST_PURPOSE)
    if (!row) {
      ctx.response.clearCookie(TRUST_COOKIE)
      return false
    }
    return String(row.user_id) === String(userId)
  }

  /** Forgets every browser `userId` trusted; how many. */
  async forgetAll(userId: unknown): Promise<number> {
    return this.manager.userTokens.revokeAll(userId, TRUST_PURPOSE)
  }
}
