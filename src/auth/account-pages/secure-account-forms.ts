/**
 * @module auth/account-pages/secure-account-forms
 * The pages of the "This wasn't me" link (controller `auth/SecureAccountController`):
 * - `GET` (and `HEAD`) `/account/secure/@token` changes nothing: a live link shows what will
 *   happen and a button that POSTs to the same path (a mail scanner or a preview that follows
 *   the link changes nothing); an unknown, used or expired one answers 404 with a page saying
 *   so, without a form;
 * - `POST /account/secure/@token` secures the account (secure-account.ts), logs this browser out
 *   too, and answers 303 to `/account/secured`; a link that is no longer live answers 404 with
 *   the "cannot be used" page;
 * - `GET /account/secured`, shown logged out: what was done and the account's remaining sign-in
 *   methods (flashed by the POST: a reload shows the page without the list). It never shows an
 *   e-mail address.
 * The token pages send `Referrer-Policy: no-referrer` (the token is in the URL) and every page
 * `Cache-Control: no-store`.
 */
import type { HttpContext } from '../../http/context.js'
import { secureAccount, secureLinkIsLive, type AddressOutcome } from '../accounts/secure-account.js'
import type { SignInMethod } from '../accounts/sign-in-methods.js'

export const SECURE_MESSAGES = {
  secured: 'Your account is secured: every device has been logged out and we sent you a link to choose a new password.',
  invalid: 'This link is invalid or has expired.',
  restored: 'Your account uses the e-mail address this notice was sent to again.',
  taken:
    'The e-mail address this notice was sent to now belongs to another account, so your account could not be moved back to it. The password reset link was still sent there.',
} as const

/** What the POST hands to the secured page (flashed: the page is shown logged out). */
interface SecuredSummary {
  address: AddressOutcome
  passwordLocked: boolean
  methods: SignInMethod[]
}

const SUMMARY_KEY = 'secured_summary'

function tokenHeaders(ctx: HttpContext): void {
  ctx.response.header('Referrer-Policy', 'no-referrer')
  ctx.response.header('Cache-Control', 'no-store')
}

function invalid(ctx: HttpContext): string {
  ctx.response.status(404)
  return ctx.view.render('auth/secured', { secured: false, message: SECURE_MESSAGES.invalid })
}

export const SecureAccountForms = {
  /** `GET`/`HEAD` shows the page (`show`), `POST` acts (`confirm`): one controller action for both. */
  async secure(ctx: HttpContext): Promise<unknown> {
    return ctx.request.method === 'POST' ? SecureAccountForms.confirm(ctx) : SecureAccountForms.show(ctx)
  },

  /** GET /account/secure/@token: what the button will do; changes nothing. */
  async show(ctx: HttpContext): Promise<unknown> {
    tokenHeaders(ctx)
    const token = String(ctx.params.token ?? '')
    if (!(await secureLinkIsLive(ctx, token))) return invalid(ctx)
    return ctx.view.render('auth/secure', { token })
  },

  /** POST /account/secure/@token: secures the account, logs this browser out, 303 to /account/secured. */
  async confirm(ctx: HttpContext): Promise<unknown> {
    tokenHeaders(ctx)
    const outcome = await secureAccount(ctx, ctx.params.token)
    if (outcome.status !== 'secured') return invalid(ctx)
    // This browser too: its login (already ended server-side), its cookies and its session go.
    await ctx.auth.logout()
    const summary: SecuredSummary = { address: outcome.address, passwordLocked: outcome.passwordLocked, methods: outcome.methods }
    if (ctx.hasSession) ctx.session.flash(SUMMARY_KEY, summary)
    return ctx.response.redirect('/account/secured', 303)
  },

  /** GET /account/secured: what was done, and the remaining sign-in methods. */
  async secured(ctx: HttpContext): Promise<unknown> {
    ctx.response.header('Cache-Control', 'no-store')
    const summary = ctx.hasSession ? ctx.session.getFlash<SecuredSummary | undefined>(SUMMARY_KEY) : undefined
    return ctx.view.render('auth/secured', {
      secured: true,
      message: SECURE_MESSAGES.secured,
      summary: summary ?? null,
      address_message: summary?.address === 'restored' ? SECURE_MESSAGES.restored : summary?.address === 'taken' ? SECURE_MESSAGES.taken : null,
    })
  },
}
