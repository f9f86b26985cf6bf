/**
 * @module auth/account-pages/email-verification-forms
 * What the generated `EmailVerificationController` (and `AccountController@changeEmail`) do, kept
 * in the framework so fixes reach every app:
 * - `GET /email/verify` (auth): the "check your inbox" page; a verified user goes to /home.
 * - `POST /email/verification-notification` (auth): a new link, within `GUARDS.throttle.verify`
 *   per account (default 6 a minute).
 * - `GET /email/verify/@token`: the link's page (changes nothing); `POST`: its button.
 * - `POST /account/email` (auth; `email`, `password`): starts an e-mail change.
 * Pages get 302s with a flashed message; JSON requests get statuses and `{ message }`.
 */
import type { HttpContext } from '../../http/context.js'
import { TooManyRequestsError, ValidationError } from '../../http/errors.js'
import { validate } from '../../validation/index.js'
import { AUTH_MESSAGES } from '../messages.js'
import { normalizeEmail } from '../email.js'
import { clientKey } from '../throttle/client-key.js'
import type { Budget } from '../throttle/budget.js'
import { isVerified } from '../accounts/verification.js'
import { VERIFY_EMAIL_MINUTES, emailTaken, requestEmailChange, sendVerificationEmail } from '../accounts/email-verification.js'
import { EMAIL_LINK_MESSAGES, EmailLinkForms } from './email-link-forms.js'

/** Every message of these pages. */
export const VERIFICATION_MESSAGES = {
  linkSent: (email: string) => `A new verification link has been sent to ${email}.`,
  alreadyVerified: 'Your e-mail address is already verified.',
  verified: EMAIL_LINK_MESSAGES.verified,
  changed: EMAIL_LINK_MESSAGES.changed,
  invalid: EMAIL_LINK_MESSAGES.invalid,
  taken: EMAIL_LINK_MESSAGES.taken,
  changeRequested: (email: string) => `We sent a link to ${email} — the change takes effect when you open it.`,
  sameEmail: 'That is already your e-mail address.',
  wrongPassword: 'The password is incorrect.',
} as const

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function column(ctx: HttpContext): string {
  return ctx.auth.manager.model?.authColumn ?? 'email'
}

/** The logged-in user (the routes are behind `auth`; without it, a 401 as `auth` would give). */
async function currentUser(ctx: HttpContext): Promise<any> {
  return ctx.auth.authenticate()
}

/**
 * Takes one slot of `budget` for the account `userId`. Within it: null. Over it: JSON gets 429
 * `E_TOO_MANY_REQUESTS` with `Retry-After` (thrown); a page a 302 to `back` with the "too many
 * attempts" message and `input` kept.
 */
async function spendForAccount(ctx: HttpContext, budget: Budget, userId: unknown, back: string, input: Record<string, unknown> = {}): Promise<unknown> {
  const wait = await budget.take(budget.key(String(userId)))
  if (wait === null) return null
  const error = new TooManyRequestsError(wait)
  ctx.app.log.warn(`auth.${budget.name}_throttled`, { user_id: userId, ip: ctx.request.ip(), request_id: ctx.request.id, retry_after: error.retryAfter })
  if (ctx.request.wantsJson() || !ctx.hasSession) throw error
  ctx.session.flash('error', AUTH_MESSAGES.throttled(error.retryAfter))
  if (Object.keys(input).length > 0) ctx.session.flashInput(input)
  return ctx.response.redirect(back)
}

/** A 302 to `to` with a flashed message (JSON: `{"data": {"message", "redirect"}}`, session/json-forms). */
function answer(ctx: HttpContext, to: string, kind: 'success' | 'error', message: string): unknown {
  ctx.session.flash(kind, message)
  return ctx.response.redirect(to)
}

export const EmailVerificationForms = {
  /** GET /email/verify: "check your inbox" with a resend button; verified users go to /home. */
  async notice(ctx: HttpContext): Promise<unknown> {
    const user = await currentUser(ctx)
    const email = String(user[column(ctx)] ?? '')
    if (ctx.request.wantsJson()) return { email, verified: isVerified(user) }
    if (isVerified(user)) {
      // A message meant for this page (e.g. from a dead link) is shown on /home instead.
      ctx.session.reflash()
      return ctx.response.redirect('/home')
    }
    ctx.response.header('Cache-Control', 'no-store')
    return ctx.view.render('auth/verify_email', { user, email, expires_in: VERIFY_EMAIL_MINUTES })
  },

  /**
   * POST /email/verification-notification: a new link (the previous one stops working) within
   * the account's `verify` budget; 302 back to /email/verify with a message (JSON: 202).
   * A verified user gets nothing sent (302 /home; JSON 200).
   */
  async resend(ctx: HttpContext): Promise<unknown> {
    const user = await currentUser(ctx)
    if (isVerified(user)) return answer(ctx, '/home', 'success', VERIFICATION_MESSAGES.alreadyVerified)
    const throttled = await spendForAccount(ctx, ctx.auth.manager.budgets.verify, user.getKey(), '/email/verify')
    if (throttled) return throttled
    await sendVerificationEmail(ctx, user)
    return answer(ctx, '/email/verify', 'success', VERIFICATION_MESSAGES.linkSent(String(user[column(ctx)])))
  },

  /**
   * GET (and HEAD) /email/verify/@token: the link's page, which changes nothing; POST: its button,
   * which verifies the address or applies the change (see email-link-forms.ts).
   */
  verify(ctx: HttpContext): Promise<unknown> {
    return ctx.request.method === 'POST' ? EmailLinkForms.confirm(ctx) : EmailLinkForms.show(ctx)
  },

  /**
   * POST /account/email (`email`, `password`): checks the new address (required, an address, at
   * most 255 characters, not the current one), then, after one slot of the account's `confirm`
   * budget, the current password, then that no other account holds the address; then one slot
   * of the account's `verify` budget, a link to the new address and a notice to the current one,
   * and a 302 to /account with a message (JSON 200 `{ message }`). Errors go back next to their
   * field (JSON 422). The address changes only when the link is opened.
   */
  async changeEmail(ctx: HttpContext): Promise<unknown> {
    const user = await currentUser(ctx)
    const manager = ctx.auth.manager
    const back = '/account'
    const body = ctx.request.body // the password never comes from the query string
    let errors: Record<string, string[]> = {}
    let data: Record<string, unknown> = {}
    try {
      data = await validate(body, { email: 'required|string|email|max:255', password: 'required|string|max:1024' })
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error
      errors = { ...error.errors }
    }
    const email = normalizeEmail(data.email)
    if (!errors.email && email === normalizeEmail(user[column(ctx)])) errors.email = [VERIFICATION_MESSAGES.sameEmail]
    if (Object.keys(errors).length > 0) throw new ValidationError(errors, undefined, { back })

    // Each password check takes a slot first, so the password cannot be guessed here quickly.
    const throttled = await spendForAccount(ctx, manager.budgets.confirm, user.getKey(), back, { email: text(body.email) })
    if (throttled) return throttled
    const hash = typeof user.getAuthPassword === 'function' ? user.getAuthPassword() : user[manager.model?.passwordColumn ?? 'password']
    const check = { client: clientKey(ctx.request.ip()) }
    const password = data.password as string
    const ok = typeof hash === 'string' && hash !== '' ? await manager.hasher.verify(hash, password, check) : await manager.hasher.dummyVerify(password, check)
    if (!ok) throw new ValidationError({ password: [VERIFICATION_MESSAGES.wrongPassword] }, undefined, { back })
    // Whether an address is registered is told only to someone who knows this account's password.
    if (await emailTaken(ctx, email, user.getKey())) throw new ValidationError({ email: [AUTH_MESSAGES.emailTaken] }, undefined, { back })

    // Verification e-mails per account: resends and change requests share the budget.
    const held = await spendForAccount(ctx, manager.budgets.verify, user.getKey(), back, { email: text(body.email) })
    if (held) return held
    await requestEmailChange(ctx, user, email)
    return answer(ctx, back, 'success', VERIFICATION_MESSAGES.changeRequested(email))
  },
}
