/**
 * @module auth/account-pages/confirm-password-forms
 * What the generated `ConfirmPasswordController` does: `GET /confirm-password` (the form) and
 * `POST /confirm-password` (field `password`). The `password.confirm` middleware sends a user
 * here when they have not typed their password in the last `GUARDS.web.password_timeout` minutes.
 * A user without a password is offered a passkey instead (its answer, `POST /passkeys/login`,
 * records the confirmation) and, with social login, a fresh round trip to a linked provider.
 *
 * A confirmation takes one slot of the `confirm` budget (`GUARDS.throttle.confirm`, default 5 a
 * minute), keyed by the account, before any hashing: a stolen session cannot guess the password
 * faster than that, whatever its addresses. The check runs on the hashing threads, in the client's
 * line, as a login's does. Right: the session records the confirmation and the user goes back to
 * where `password.confirm` stopped them (a same-site path only), else to `/account`, with the
 * stopped form's input flashed back.
 */
import type { HttpContext } from '../../http/context.js'
import { sameSitePath } from '../../http/response.js'
import { TooManyRequestsError, ValidationError } from '../../http/errors.js'
import { CONFIRM_INPUT, CONFIRM_INTENDED, markPasswordConfirmed } from '../middleware/password-confirm-middleware.js'
import { AUTH_MESSAGES } from '../messages.js'
import { eventBase } from '../events.js'
import { clientKey } from '../throttle/client-key.js'
import type { AuthUser } from '../types.js'
import { passwordHashOf } from '../accounts/first-password.js'

/** The field error of a wrong password. */
export const CONFIRM_PASSWORD_INCORRECT = 'The password is incorrect.'
/** The JSON answer of a right one. */
export const PASSWORD_CONFIRMED = 'Password confirmed.'

const FORM = '/confirm-password'


export const ConfirmPasswordForms = {
  /** GET /confirm-password: the form (behind `auth`). */
  async show(ctx: HttpContext): Promise<unknown> {
    ctx.response.header('Cache-Control', 'no-store')
    const user = await ctx.auth.authenticate<AuthUser>()
    // A user without a password confirms with a passkey (or a linked provider) instead.
    const passkeys = ctx.auth.manager.resolved.features.has('passkeys') && passwordHashOf(ctx, user) === null
    return ctx.view.render('auth/confirm_password', { user, passkeys })
  },

  /**
   * POST /confirm-password: right password → 302 to where `password.confirm` stopped the user
   * (JSON: 200 `{ message }`); wrong → 302 back with the field error (JSON 422); over the `confirm`
   * budget → 302 back with the "too many attempts" message (JSON 429 with `Retry-After`).
   */
  async confirm(ctx: HttpContext): Promise<unknown> {
    const { request, response } = ctx
    const user = await ctx.auth.authenticate<AuthUser>()
    const manager = ctx.auth.manager
    const json = request.wantsJson() || !ctx.hasSession
    // From the body only, never from the query string.
    const password = request.post('password')
    if (typeof password !== 'string' || password === '') {
      throw new ValidationError({ password: ['The password field is required.'] }, undefined, { back: FORM })
    }

    // A slot first, before any hashing: at most `attempts` checks per account and window.
    const budget = manager.budgets.confirm
    const key = budget.key(String(user.getKey()))
    const wait = await budget.take(key)
    if (wait !== null) {
      const error = new TooManyRequestsError(wait)
      ctx.app.log.warn('auth.confirm_throttled', { user_id: user.getKey(), ip: request.ip(), request_id: request.id, retry_after: error.retryAfter })
      manager.events.emit('auth:throttled', { ...eventBase(ctx, ctx.auth.guardName, user), retryAfter: error.retryAfter })
      if (json) throw error
      ctx.session.flash('error', AUTH_MESSAGES.throttled(error.retryAfter))
      return response.redirect(FORM)
    }

    const hash = passwordHashOf(ctx, user)
    const check = { client: clientKey(request.ip()), signal: (request as { signal?: AbortSignal }).signal }
    const ok = hash !== null ? await manager.hasher.verify(hash, password, check) : await manager.hasher.dummyVerify(password, check)
    if (!ok) {
      ctx.app.log.warn('auth.confirm_failed', { user_id: user.getKey(), ip: request.ip(), request_id: request.id })
      throw new ValidationError({ password: [CONFIRM_PASSWORD_INCORRECT] }, undefined, { back: FORM })
    }

    await budget.clear(key)
    markPasswordConfirmed(ctx)
    if (json) return { message: PASSWORD_CONFIRMED }
    const intended = sameSitePath(ctx.session.get<unknown>(CONFIRM_INTENDED))
    const input = ctx.session.get<unknown>(CONFIRM_INPUT)
    ctx.session.forget(CONFIRM_INTENDED)
    ctx.session.forget(CONFIRM_INPUT)
    // The stopped form's fields, back on its page (`old('name')`).
    if (intended && input && typeof input === 'object') ctx.session.flashInput(input as Record<string, unknown>)
    const fallback = manager.resolved.features.has('account') ? '/account' : '/home'
    return response.redirect(intended ?? fallback)
  },
}
