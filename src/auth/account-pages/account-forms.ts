/**
 * @module auth/account-pages/account-forms
 * What the generated AccountController does: the profile page (`GET /account`), saving the name
 * (`POST /account/profile`), changing the password (`POST /account/password`) and deleting the
 * account (`POST /account/delete`, behind `password.confirm`). All behind `auth`. Changing the
 * e-mail address (`POST /account/email`) is `EmailVerificationForms.changeEmail`: the new address
 * is verified first.
 */
import type { HttpContext } from '../../http/context.js'
import { TooManyRequestsError, ValidationError } from '../../http/errors.js'
import { validate } from '../../validation/index.js'
import { checkWithPolicy } from '../auth-forms.js'
import { AUTH_MESSAGES } from '../messages.js'
import { normalizeEmail } from '../email.js'
import { eventBase } from '../events.js'
import { AUTH_COOKIE, REMEMBER_COOKIE } from '../guards/web/types.js'
import { markPasswordConfirmed } from '../middleware/password-confirm-middleware.js'
import { isVerified } from '../accounts/verification.js'
import { factorFlags } from '../accounts/factor-flags.js'
import { currentLoginHash } from './device-forms.js'
import { liftPasswordLock } from '../accounts/password-lock.js'
import { rotateCurrentLogin } from '../guards/web/guard.js'
import { firstPasswordGate, hasPassword } from '../accounts/first-password.js'

export const ACCOUNT_MESSAGES = {
  profileSaved: 'Profile saved.',
  useEmailForm: 'To change your e-mail address, use the "Change e-mail" form: the new address has to be verified first.',
  currentPasswordIncorrect: 'The current password is incorrect.',
  passwordChanged: 'Password changed. Your other devices have been logged out.',
  accountDeleted: 'Your account has been deleted.',
} as const

type Row = Record<string, unknown>

/** A flash and a 302 (JSON: `{"data": {"message", "redirect"}}`, session/json-forms). */
function done(ctx: HttpContext, message: string, to: string): unknown {
  ctx.session.flash('success', message)
  return ctx.response.redirect(to)
}

export const AccountForms = {
  /** GET /account: the profile, with the name, e-mail, password and delete forms. */
  async show(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const manager = ctx.auth.manager
    const column: string = manager.model?.authColumn ?? 'email'
    ctx.response.header('Cache-Control', 'no-store')
    return ctx.view.render('auth/account', {
      user,
      email: (user as Row)[column],
      verified: isVerified(user),
      verification: manager.resolved.features.has('email_verification'),
      // No password yet (made by a provider, a passkey or a mailed link): the form sets a first one.
      has_password: hasPassword(ctx, user),
      ...(await factorFlags(ctx, user)),
    })
  },

  /**
   * POST /account/profile: saves `name`. The form also shows the e-mail address; sending it
   * unchanged is fine, a different one is a field error pointing to the change-e-mail form (a new
   * address takes effect only once verified, never straight from this form).
   */
  async updateProfile(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const column: string = ctx.auth.manager.model?.authColumn ?? 'email'
    const input = ctx.request.body
    let errors: Record<string, string[]> = {}
    let data: Row = {}
    try {
      data = await validate(input, { name: 'required|string|max:255' })
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error
      errors = { ...error.errors }
    }
    const email = input[column]
    if (email !== undefined && email !== null && email !== '' && (typeof email !== 'string' || normalizeEmail(email) !== normalizeEmail((user as Row)[column]))) {
      errors[column] = [ACCOUNT_MESSAGES.useEmailForm]
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors, undefined, { back: '/account' })
    user.forceFill({ name: String(data.name).trim() })
    await user.save()
    return done(ctx, ACCOUNT_MESSAGES.profileSaved, '/account')
  },

  /**
   * POST /account/password (`current_password`, `password`, `password_confirmation`). Checking
   * the current password takes a slot of the `confirm` budget for the account first (over it:
   * 302 back with "too many attempts", JSON 429). On success, in one transaction, the new hash
   * is stored and every other login of the user ends (web logins, other devices' "remember me"
   * tokens, the API token); this login stays, on a new session id. Counts as a fresh password
   * confirmation. Emits `auth:password_changed`.
   */
  async changePassword(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const manager = ctx.auth.manager
    const { request } = ctx
    // No password yet (a provider, a passkey or a mailed link made the account): a first one.
    const first = !hasPassword(ctx, user)
    if (first) {
      const stop = await firstPasswordGate(ctx)
      if (stop !== undefined) return stop
    }
    const { data, errors } = await checkWithPolicy(ctx, {
      ...(first ? {} : { current_password: 'required|string|max:1024' }),
      password: 'required|string|min:8|max:1024|confirmed',
    })
    const current = request.body.current_password
    // The current password is checked whenever one was typed, so every error shows in one answer;
    // each check costs a slot, taken before the hash.
    if (!first && !errors.current_password && typeof current === 'string') {
      const budget = manager.budgets.confirm
      const wait = await budget.take(budget.key(String(user.getKey())))
      if (wait !== null) {
        const error = new TooManyRequestsError(wait)
        ctx.app.log.warn('auth.confirm_throttled', { user_id: user.getKey(), ip: request.ip(), request_id: request.id, retry_after: error.retryAfter })
        ctx.app.events.emit('auth:throttled', { ...eventBase(ctx, ctx.auth.guardName, user), retryAfter: error.retryAfter })
        if (request.wantsJson() || !ctx.hasSession) throw error
        ctx.session.flash('error', AUTH_MESSAGES.throttled(error.retryAfter))
        ctx.session.flashInput(request.body)
        return ctx.response.redirect('/account')
      }
      const passwordColumn: string = manager.model?.passwordColumn ?? 'password'
      const stored = (user as Row)[passwordColumn]
      const check = { client: request.ip() }
      const ok = typeof stored === 'string' && stored !== '' ? await manager.hasher.verify(stored, current, check) : await manager.hasher.dummyVerify(current, check)
      if (!ok) errors.current_password = [ACCOUNT_MESSAGES.currentPasswordIncorrect]
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors, undefined, { back: '/account' })

    const passwordColumn: string = manager.model?.passwordColumn ?? 'password'
    const hash = await manager.hasher.hash(String(data.password))
    const keepLoginHash = currentLoginHash(ctx)
    await manager.db().transaction(async (trx) => {
      user.forceFill({ [passwordColumn]: hash })
      await user.save({ client: trx })
      // A new password: the lock of "This wasn't me" (on the old one) is lifted.
      await liftPasswordLock(manager.model, user.getKey(), manager.inventory.migrated, trx)
      await manager.inventory.revokeAll(user.getKey(), { reason: 'password_change', trx, keepLoginHash })
    })
    // This login stays, under new cookie values: a stolen copy of the old ones ends here too.
    await rotateCurrentLogin(ctx)
    if (ctx.hasSession) {
      ctx.session.regenerate()
      markPasswordConfirmed(ctx)
    }
    ctx.app.events.emit('auth:password_changed', eventBase(ctx, ctx.auth.guardName, user))
    return done(ctx, ACCOUNT_MESSAGES.passwordChanged, '/account')
  },

  /**
   * POST /account/delete (behind `password.confirm`): in one transaction, every login of the
   * user ends (web, "remember me", API token), their mailed links and reset links are deleted,
   * then the user row. The foreign keys cascade too, but the deletes do not rely on them. Emits
   * `auth:account_deleted`, logs this browser out and 302s to / with a message.
   */
  async destroy(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const manager = ctx.auth.manager
    const userId = user.getKey()
    await manager.db().transaction(async (trx) => {
      // Everything of the user, mailed links and password reset links included, then the row.
      await manager.inventory.revokeAll(userId, { reason: 'delete', trx, deleting: true })
      await user.delete({ client: trx })
    })
    ctx.app.events.emit('auth:account_deleted', { ...eventBase(ctx, ctx.auth.guardName, user), userId: String(userId) })
    // Logged out without auth.logout(): the login is gone already, and the account with it.
    ctx.response.clearCookie(AUTH_COOKIE)
    ctx.response.clearCookie(REMEMBER_COOKIE)
    if (ctx.hasSession) ctx.session.invalidate()
    return done(ctx, ACCOUNT_MESSAGES.accountDeleted, '/')
  },
}
