/**
 * @module auth/email-login/forms
 * The pages of sign-in by e-mail (`email_login` feature), served by the generated
 * `EmailLoginController`:
 * - `GET /login/email`: the address form; `POST /login/email` (`email`) → 302 `/login/email/sent`
 *   whether or not the address has an account (one slot of `email_login` per client address
 *   first; the mail goes after the answer).
 * - `GET /login/email/sent`: "check your inbox" and the code form; `POST /login/email/code`
 *   (`email`, `code`) signs in, or 302 `/login/email/sent` with "The code is invalid or has
 *   expired." (JSON 422 `E_VALIDATION`).
 * - `GET /login/email/@token` (and HEAD) changes nothing: "Sign in as …?" and a button that POSTs
 *   to the same path, or a page saying the link is unusable with a form to ask again;
 *   `POST /login/email/@token` signs in, or 302 `/login/email` (JSON 422 with `errors.token`).
 * A browser logged in as another user is never switched: the pages ask to log out first.
 */
import type { HttpContext } from '../../http/context.js'
import { answerData } from '../../session/json-forms.js'
import { TooManyRequestsError, ValidationError } from '../../http/errors.js'
import { validate } from '../../validation/index.js'
import { AuthConfigError } from '../errors.js'
import { normalizeEmail } from '../email.js'
import { AUTH_MESSAGES } from '../messages.js'
import { clientKey } from '../throttle/client-key.js'
import type { AuthUser } from '../types.js'
import { accountOf, completeWebSignIn, type SignInMethod } from './complete.js'
import type { EmailLogin } from './email-login.js'
import type { EmailLoginRow } from './store.js'

export const EMAIL_LOGIN_MESSAGES = {
  sent: 'If the address has an account, a sign-in link and code are on their way.',
  codeInvalid: 'The code is invalid or has expired.',
  linkInvalid: 'This sign-in link is invalid or has expired.',
  otherUser: 'You are signed in as another user. Log out first to use this sign-in link or code.',
  claimed: 'Your address is verified. Anything set up on this account before (a password, passkeys, an authenticator app, other logins) has been removed: add what you need again from your account page.',
} as const

/** Session key: the address the last request was for (to fill the code form). */
const ADDRESS_KEY = 'auth.email_login.address'

export function emailLogin(ctx: HttpContext): EmailLogin {
  const service = ctx.app.get<EmailLogin>('auth.email_login')
  if (!service) throw new AuthConfigError('Sign-in by e-mail is off: add "email_login" to GUARDS.features in config/auth.ts.')
  return service
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function noStore(ctx: HttpContext): void {
  ctx.response.header('Cache-Control', 'no-store')
  ctx.response.header('Referrer-Policy', 'no-referrer')
}

/** The logged-in user when it is not the account of `address`, else null. */
async function otherUser(ctx: HttpContext, service: EmailLogin, address: string | null): Promise<AuthUser | null> {
  if (!(await ctx.auth.check())) return null
  const user = ctx.auth.user<AuthUser>()
  if (!user) return null
  const column = service.manager.resolved.model?.authColumn ?? 'email'
  return address !== null && normalizeEmail((user as unknown as Record<string, unknown>)[column]) === address ? null : user
}

function throttled(ctx: HttpContext, retryAfter: number, back: string, input: Record<string, unknown>): unknown {
  const error = new TooManyRequestsError(retryAfter)
  ctx.app.log.warn('auth.email_login_throttled', { ip: ctx.request.ip(), request_id: ctx.request.id, retry_after: error.retryAfter })
  if (ctx.request.wantsJson() || !ctx.hasSession) throw error
  ctx.session.flash('error', AUTH_MESSAGES.throttled(error.retryAfter))
  ctx.session.flashInput(input)
  return ctx.response.redirect(back)
}

/** After the sign-in: the challenge, or `/home` (with the claim's message). */
async function finish(ctx: HttpContext, service: EmailLogin, row: EmailLoginRow, method: SignInMethod, invalid: () => unknown): Promise<unknown> {
  const account = await accountOf(service, row)
  if (!account) return invalid()
  const claim = account.claim
  const challenge = await completeWebSignIn(ctx, service, account, method)
  if (claim && ctx.hasSession) ctx.session.flash('success', EMAIL_LOGIN_MESSAGES.claimed)
  const target = challenge ?? '/home'
  if (ctx.request.wantsJson()) return { redirect: target }
  return ctx.response.redirect(target)
}

export const EmailLoginForms = {
  /** GET /login/email (logged in: 302 /home) */
  async show(ctx: HttpContext): Promise<unknown> {
    emailLogin(ctx)
    if (await ctx.auth.check()) return ctx.response.redirect('/home')
    return ctx.view.render('auth/email_login')
  },

  /** POST /login/email: 302 /login/email/sent, the same answer for every well-formed address. */
  async send(ctx: HttpContext): Promise<unknown> {
    const service = emailLogin(ctx)
    const data = await validate(ctx.request.body, { email: 'required|string|email|max:255' })
    const address = normalizeEmail(data.email)
    const wait = await service.request.take(service.request.key(clientKey(ctx.request.ip())))
    if (wait !== null) return throttled(ctx, wait, '/login/email', { email: text(data.email) })
    service.send(ctx, address)
    answerData(ctx, { message: EMAIL_LOGIN_MESSAGES.sent })
    ctx.session.put(ADDRESS_KEY, address)
    return ctx.response.redirect('/login/email/sent')
  },

  /** GET /login/email/sent: what to do next, and the code form. */
  sent(ctx: HttpContext): string {
    emailLogin(ctx)
    noStore(ctx)
    const email = text(ctx.session.get<unknown>(ADDRESS_KEY))
    return ctx.view.render('auth/email_login_sent', { email, minutes: emailLogin(ctx).config.minutes })
  },

  /** POST /login/email/code (`email`, `code`) */
  async code(ctx: HttpContext): Promise<unknown> {
    const service = emailLogin(ctx)
    const email = text(ctx.request.post('email')).trim()
    const code = text(ctx.request.post('code')).replace(/\s+/g, '')
    const address = normalizeEmail(email)
    const invalid = () => {
      throw new ValidationError({ code: [EMAIL_LOGIN_MESSAGES.codeInvalid] }, undefined, { back: '/login/email/sent' })
    }
    if (await otherUser(ctx, service, address)) {
      if (ctx.request.wantsJson()) throw new ValidationError({ email: [EMAIL_LOGIN_MESSAGES.otherUser] })
      ctx.session.flash('error', EMAIL_LOGIN_MESSAGES.otherUser)
      return ctx.response.redirect('/login/email/sent')
    }
    const outcome = await service.checkCode(ctx, email, code)
    if (outcome.kind === 'throttled') return throttled(ctx, outcome.retryAfter, '/login/email/sent', { email })
    if (outcome.kind === 'invalid') {
      if (!ctx.request.wantsJson() && ctx.hasSession) {
        ctx.session.flashErrors({ code: [EMAIL_LOGIN_MESSAGES.codeInvalid] })
        ctx.session.flashInput({ email })
        return ctx.response.redirect('/login/email/sent')
      }
      return invalid()
    }
    return finish(ctx, service, outcome.row, 'email_code', invalid)
  },

  /** GET /login/email/@token (and HEAD): changes nothing. */
  async showLink(ctx: HttpContext): Promise<string> {
    const service = emailLogin(ctx)
    noStore(ctx)
    const token = text(ctx.params.token)
    const row = await service.store.findByToken(token)
    if (!row) return ctx.view.render('auth/email_login_link', { invalid: true, message: EMAIL_LOGIN_MESSAGES.linkInvalid })
    const other = await otherUser(ctx, service, row.email)
    return ctx.view.render('auth/email_login_link', { token, email: row.email, other: other !== null, message: other ? EMAIL_LOGIN_MESSAGES.otherUser : null })
  },

  /** POST /login/email/@token */
  async link(ctx: HttpContext): Promise<unknown> {
    const service = emailLogin(ctx)
    noStore(ctx)
    const token = text(ctx.params.token)
    const invalid = () => {
      if (ctx.request.wantsJson() || !ctx.hasSession) throw new ValidationError({ token: [EMAIL_LOGIN_MESSAGES.linkInvalid] })
      ctx.session.flash('error', EMAIL_LOGIN_MESSAGES.linkInvalid)
      return ctx.response.redirect('/login/email')
    }
    const live = await service.store.findByToken(token)
    if (!live) return invalid()
    // Another user's browser is not switched: back to the page, which asks to log out first.
    if (await otherUser(ctx, service, live.email)) {
      if (ctx.request.wantsJson()) throw new ValidationError({ token: [EMAIL_LOGIN_MESSAGES.otherUser] })
      return ctx.response.redirect(`/login/email/${token}`)
    }
    const row = await service.store.consumeToken(token)
    if (!row) return invalid()
    // A link proves the mailbox: the address's code budgets start again.
    await service.clearCodeBudgets(row.email)
    return finish(ctx, service, row, 'email_link', invalid)
  },
}
