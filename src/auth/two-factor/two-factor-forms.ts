/**
 * @module auth/two-factor/two-factor-forms
 * What the generated TwoFactorController does, all behind `auth` and `password.confirm`. A user
 * who has a factor already (TOTP on, or a passkey) must have used one in this login first: without
 * it every action answers like `mfa` (302 to the step-up, JSON 403 `E_MFA_REQUIRED`), so a
 * password alone never adds, replaces or removes a second factor.
 * With `email_verification` on, an unverified user gets 302 `/email/verify` (JSON 403
 * `E_EMAIL_NOT_VERIFIED`) from the set-up actions, whatever middleware ran before.
 * - `GET /account/two-factor`: TOTP off → the QR code (inline SVG) of this session's pending
 *   secret (see pending-secret), the secret as text in groups of four, and the form for the first
 *   code; a reload keeps it. TOTP on → since when, recovery codes left (and, once, the codes the
 *   last POST made), and the forms to regenerate them and to turn TOTP off.
 * - `POST /account/two-factor` (`code`): a right code turns TOTP on, emits
 *   `auth:two_factor_enabled`, marks this login as made with a second factor (when it is the
 *   user's first, under a new session id), and redirects to the page, which shows the 10 recovery
 *   codes once; a wrong one is a field error (302 back, JSON 422).
 * - `POST /account/two-factor/recovery-codes`: 10 new codes in place of the old ones, shown once
 *   the same way.
 * - `POST /account/two-factor/disable` (also `mfa.recent`): the secret, the recovery codes and the
 *   trusted devices are deleted; emits `auth:two_factor_disabled`.
 *
 * Recovery codes never are in a POST's answer: they wait encrypted in the login's session for the
 * one page view (or JSON read) that shows them, so a reload never makes new ones.
 * JSON clients get `{ enabled, secret, otpauth_url }` (off), `{ enabled, confirmed_at,
 * recovery_codes_remaining }` (on, with `recovery_codes` once after a POST made them).
 */
import { appName } from '../../foundation/config-files.js'
import type { HttpContext } from '../../http/context.js'
import { answerData } from '../../session/json-forms.js'
import { ValidationError } from '../../http/errors.js'
import { eventBase } from '../events.js'
import { formatWhen } from '../accounts/devices.js'
import { hasFactor, stepUpIfEnrolled } from '../middleware/mfa-middleware.js'
import { requireRecentSecondFactor } from '../middleware/mfa-recent-middleware.js'
import { refuseUnverified } from '../middleware/verified-middleware.js'
import { markSecondFactor, sessionAmr, setSessionAmr } from './amr.js'
import { groupSecret, otpauthUri } from './totp.js'
import { forgetPendingSecret, keepNewCodes, pendingSecretOf, startPendingSecret, takeNewCodes } from './pending-secret.js'
import { parseTotpCode, type TwoFactor, type TwoFactorStatus } from './two-factor.js'
import { qrCodeSvg } from './qr-code.js'
import type { AuthUser } from '../types.js'

export const TWO_FACTOR_MESSAGES = {
  enabled: 'Two-factor authentication is on. Save your recovery codes now: they are shown only once.',
  regenerated: 'New recovery codes made; the old ones no longer work. Save these now: they are shown only once.',
  disabled: 'Two-factor authentication is off.',
  codeRequired: 'Enter the 6-digit code from your authenticator app.',
  wrongCode: 'That code is not right. Check that the time on your phone is correct and enter the newest code.',
  alreadyEnabled: 'Two-factor authentication is already on.',
  notEnabled: 'Two-factor authentication is off: turn it on first.',
  noPending: 'This set-up has ended: scan the new QR code and enter its code.',
} as const

const PAGE = '/account/two-factor'

type Row = Record<string, unknown>

function service(ctx: HttpContext): TwoFactor {
  return ctx.app.make('auth.two_factor')
}

/** The issuer shown in authenticator apps: `APPLICATION.name` (APP_NAME), as the pages' header. */
function issuer(ctx: HttpContext): string {
  return appName(ctx.app).trim() || 'Trowel'
}

function accountName(ctx: HttpContext, user: unknown): string {
  const column: string = ctx.auth.manager.model?.authColumn ?? 'email'
  const value = (user as Row)[column]
  return typeof value === 'string' ? value : String(value ?? '')
}

/**
 * Freshly made codes are not in the POST's answer: this login's session keeps them (encrypted)
 * for the page the POST redirects to, `GET /account/two-factor`, which shows them once and drops
 * them. A reload of that page shows no codes and makes none (JSON: the answer names the page,
 * whose next JSON read carries `recovery_codes` once).
 */
function showCodesOnce(ctx: HttpContext, user: AuthUser, codes: string[], message: string): unknown {
  keepNewCodes(ctx, service(ctx), user.getKey(), codes)
  ctx.response.header('Cache-Control', 'no-store')
  if (!ctx.hasSession) return { enabled: true, message, recovery_codes_url: PAGE }
  answerData(ctx, { enabled: true, recovery_codes_url: PAGE })
  ctx.session.flash('success', message)
  return ctx.response.redirect(PAGE)
}

/** The page of a user with TOTP on: since when, codes left, the manage forms (and new codes). */
function renderEnabled(ctx: HttpContext, user: AuthUser, status: TwoFactorStatus, codes: string[] | null, message?: string): unknown {
  ctx.response.header('Cache-Control', 'no-store')
  return ctx.view.render('auth/two_factor', {
    user,
    enabled: true,
    confirmed: formatWhen(status.confirmedAt),
    confirmedIso: status.confirmedAt?.toISOString() ?? '',
    remaining: status.recoveryCodes,
    recovery_codes: codes,
    ...(message ? { messages: { success: message } } : {}),
  })
}

function statusJson(status: TwoFactorStatus): Record<string, unknown> {
  return { enabled: true, confirmed_at: status.confirmedAt?.toISOString() ?? null, recovery_codes_remaining: status.recoveryCodes }
}

export const TwoFactorForms = {
  /** GET /account/two-factor: set-up (QR code, secret, code form) or status and the manage forms. */
  async show(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const stepUp = refuseUnverified(ctx, user) ?? (await stepUpIfEnrolled(ctx))
    if (stepUp !== undefined) return stepUp
    const userId = user.getKey()
    const twoFactor = service(ctx)
    ctx.response.header('Cache-Control', 'no-store')
    const status = await twoFactor.status(userId)
    // The secret of this session's enrolment (the same on a reload), never one stored elsewhere.
    const secret = status.enabled ? null : startPendingSecret(ctx, twoFactor, userId)
    if (secret === null) {
      // Codes the last POST made, shown this once.
      const codes = takeNewCodes(ctx, twoFactor, userId)
      if (ctx.request.wantsJson()) return { ...statusJson(status), ...(codes ? { recovery_codes: codes } : {}) }
      return renderEnabled(ctx, user, status, codes)
    }
    const account = accountName(ctx, user)
    const uri = otpauthUri({ issuer: issuer(ctx), account, secret })
    if (ctx.request.wantsJson()) return { enabled: false, secret, otpauth_url: uri }
    return ctx.view.render('auth/two_factor', {
      user,
      enabled: false,
      account,
      secret,
      secret_grouped: groupSecret(secret),
      otpauth_url: uri,
      qr_svg: qrCodeSvg(uri, { label: `QR code to add ${account} to an authenticator app` }),
    })
  },

  /**
   * POST /account/two-factor (`code`): the first code from the app turns TOTP on; the 10 recovery
   * codes are shown once (JSON: in the answer). Wrong, missing or replayed: field error on `code`.
   */
  async enable(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const stepUp = refuseUnverified(ctx, user) ?? (await stepUpIfEnrolled(ctx))
    if (stepUp !== undefined) return stepUp
    const userId = user.getKey()
    // Read before the code is accepted: only a first factor marks this login as made with one.
    const hadFactor = await hasFactor(ctx, user)
    const twoFactor = service(ctx)
    const input = ctx.request.post('code')
    if (parseTotpCode(input) === null) throw new ValidationError({ code: [TWO_FACTOR_MESSAGES.codeRequired] }, undefined, { back: PAGE })
    const secret = pendingSecretOf(ctx, twoFactor, userId)
    const codes = secret === null ? null : await twoFactor.confirm(userId, secret, input)
    if (!codes) {
      const message = (await twoFactor.isEnabled(userId)) ? TWO_FACTOR_MESSAGES.alreadyEnabled : secret === null ? TWO_FACTOR_MESSAGES.noPending : TWO_FACTOR_MESSAGES.wrongCode
      throw new ValidationError({ code: [message] }, undefined, { back: PAGE })
    }
    forgetPendingSecret(ctx)
    // The user's first factor: this login has just shown it (under a new session id). A user who
    // had one already answered it at the step-up, so the session's amr stays as it is.
    if (!hadFactor && ctx.hasSession) {
      const amr = sessionAmr(ctx)
      ctx.session.regenerate()
      setSessionAmr(ctx, [...new Set([...(amr.length > 0 ? amr : ['pwd']), 'otp'])])
      markSecondFactor(ctx)
    }
    ctx.app.events.emit('auth:two_factor_enabled', { ...eventBase(ctx, ctx.auth.guardName, user), item: { kind: 'totp', id: String(userId) } })
    return showCodesOnce(ctx, user, codes, TWO_FACTOR_MESSAGES.enabled)
  },

  /** POST /account/two-factor/recovery-codes: 10 new codes, the old ones dead, shown once. */
  async regenerate(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const stepUp = await stepUpIfEnrolled(ctx)
    if (stepUp !== undefined) return stepUp
    const userId = user.getKey()
    const codes = await service(ctx).regenerateRecoveryCodes(userId)
    if (!codes) throw new ValidationError({ two_factor: [TWO_FACTOR_MESSAGES.notEnabled] }, undefined, { back: PAGE })
    ctx.app.log.info('auth.recovery_codes_regenerated', { user_id: userId, request_id: ctx.request.id })
    return showCodesOnce(ctx, user, codes, TWO_FACTOR_MESSAGES.regenerated)
  },

  /** POST /account/two-factor/disable: secret, recovery codes and trusted devices deleted. */
  async disable(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const stepUp = await requireRecentSecondFactor(ctx)
    if (stepUp !== undefined) return stepUp
    const wasOn = await service(ctx).disable(user.getKey())
    if (wasOn) ctx.app.events.emit('auth:two_factor_disabled', eventBase(ctx, ctx.auth.guardName, user))
    if (!ctx.hasSession) return { enabled: false, message: TWO_FACTOR_MESSAGES.disabled }
    answerData(ctx, { enabled: false })
    ctx.session.flash('success', TWO_FACTOR_MESSAGES.disabled)
    return ctx.response.redirect(PAGE)
  },
}
