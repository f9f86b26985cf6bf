/**
 * @module auth/account-pages/email-link-forms
 * The page of a mailed e-mail link and its button, served by the generated
 * `EmailVerificationController@verify` (one method for both, so apps generated before the button
 * existed get it without editing their controller):
 * - `GET` (and `HEAD`) `/email/verify/@token`: changes nothing. A live link shows a page whose
 *   button POSTs to the same path: "verify" for the account's own address (anyone holding the
 *   link), "change" for an e-mail change when logged in as its account; logged out it asks to log
 *   in (and comes back here after), logged in as another account it says so. An unknown, used or
 *   expired link: 404 with the same page saying so (JSON: 422, the message under `token`).
 * - `POST /email/verify/@token` (CSRF): confirms the link (email-link.ts), 302 /home with a
 *   message. A change without a login: 302 to /login with this page as `next` (JSON 401); by
 *   another account: 403 with the page (JSON 403 `E_FORBIDDEN`); the link stays usable in both.
 * Every answer sends `Referrer-Policy: no-referrer` and `Cache-Control: no-store`: the token is in
 * the URL.
 */
import type { HttpContext } from '../../http/context.js'
import { ForbiddenError, UnauthorizedError, ValidationError } from '../../http/errors.js'
import { inspectEmailLink, verifyEmail } from '../accounts/email-link.js'
import { VERIFY_EMAIL_MINUTES } from '../accounts/email-verification.js'

/** Every message of the link's page and its answers. */
export const EMAIL_LINK_MESSAGES = {
  verified: 'Your e-mail address has been verified.',
  changed: (email: string) => `Your e-mail address is now ${email}.`,
  invalid: 'This verification link is invalid or has expired.',
  taken: (email: string) => `${email} has been taken by another account in the meantime, so your address was not changed.`,
  loginRequired: 'Log in to confirm the change of your e-mail address.',
  wrongUser: 'This link is for another account: log in to the account that asked for the change.',
} as const

function token(ctx: HttpContext): string {
  const value = ctx.params.token
  return typeof value === 'string' ? value : ''
}

/** The link's own path (the page's form action and the login's `next`). */
function linkPath(ctx: HttpContext): string {
  return `/email/verify/${encodeURIComponent(token(ctx))}`
}

function privateAnswer(ctx: HttpContext): void {
  ctx.response.header('Referrer-Policy', 'no-referrer')
  ctx.response.header('Cache-Control', 'no-store')
}

/** A 302 to `to` with a flashed message (JSON: `{"data": {"message", "redirect"}}`, session/json-forms). */
function answer(ctx: HttpContext, to: string, kind: 'success' | 'error', message: string): unknown {
  ctx.session.flash(kind, message)
  return ctx.response.redirect(to)
}

function render(ctx: HttpContext, state: string, data: Record<string, unknown> = {}): unknown {
  return ctx.view.render('auth/email_link', { state, action: linkPath(ctx), expires_in: VERIFY_EMAIL_MINUTES, ...data })
}

export const EmailLinkForms = {
  /** GET/HEAD /email/verify/@token: the page; nothing changes. */
  async show(ctx: HttpContext): Promise<unknown> {
    privateAnswer(ctx)
    const link = await inspectEmailLink(ctx, token(ctx))
    if (link.status === 'invalid') {
      if (ctx.request.wantsJson()) throw new ValidationError({ token: [EMAIL_LINK_MESSAGES.invalid] })
      ctx.response.status(404)
      return render(ctx, 'invalid', { message: EMAIL_LINK_MESSAGES.invalid, logged_in: await ctx.auth.check() })
    }
    let state: string
    if (link.kind === 'verify') state = link.verified ? 'verified' : 'verify'
    else state = link.owner ? 'change' : link.loggedIn ? 'other_user' : 'login'
    if (ctx.request.wantsJson()) return { kind: link.kind, email: link.email, verified: link.verified, login_required: state === 'login' || state === 'other_user' }
    return render(ctx, state, { email: link.email, login_url: `/login?next=${encodeURIComponent(linkPath(ctx))}` })
  },

  /** POST /email/verify/@token: confirms the link. */
  async confirm(ctx: HttpContext): Promise<unknown> {
    privateAnswer(ctx)
    const outcome = await verifyEmail(ctx, token(ctx))
    const json = ctx.request.wantsJson()
    switch (outcome.status) {
      case 'verified':
        return answer(ctx, '/home', 'success', outcome.from === null ? EMAIL_LINK_MESSAGES.verified : EMAIL_LINK_MESSAGES.changed(outcome.email))
      case 'login_required':
        if (json) throw new UnauthorizedError(EMAIL_LINK_MESSAGES.loginRequired)
        return answer(ctx, `/login?next=${encodeURIComponent(linkPath(ctx))}`, 'error', EMAIL_LINK_MESSAGES.loginRequired)
      case 'wrong_user':
        if (json) throw new ForbiddenError(EMAIL_LINK_MESSAGES.wrongUser)
        ctx.response.status(403)
        return render(ctx, 'other_user', { email: outcome.email })
      case 'taken': {
        const message = EMAIL_LINK_MESSAGES.taken(outcome.email)
        if (json) throw new ValidationError({ email: [message] })
        const loggedIn = await ctx.auth.check()
        return answer(ctx, loggedIn ? (ctx.app.router.has('account') ? '/account' : '/home') : '/login', 'error', message)
      }
      default: {
        if (json) throw new ValidationError({ token: [EMAIL_LINK_MESSAGES.invalid] })
        const loggedIn = await ctx.auth.check()
        return answer(ctx, loggedIn && ctx.app.router.has('verification.notice') ? '/email/verify' : loggedIn ? '/home' : '/login', 'error', EMAIL_LINK_MESSAGES.invalid)
      }
    }
  },
}
