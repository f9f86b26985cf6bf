/**
 * @module auth/accounts/secure-account-forms
 * The page behind the "This wasn't me" link (`GET /account/secure/@token`, controller
 * `auth/SecureAccountController@secure`). A live link secures the account (secure-account.ts),
 * logs this browser out too, and answers 200 with the "secured" page; an unknown, used or
 * expired link answers 404 with the same page saying so, and changes nothing. Both send
 * `Referrer-Policy: no-referrer` (the token is in the URL) and `Cache-Control: no-store`.
 */
import type { HttpContext } from '../../http/context.js'
import { secureAccount } from './secure-account.js'

export const SECURE_MESSAGES = {
  secured: 'Your account is secured: every device has been logged out and we sent you a link to choose a new password.',
  invalid: 'This link is invalid or has expired.',
} as const

export const SecureAccountForms = {
  /** GET /account/secure/@token */
  async secure(ctx: HttpContext): Promise<string> {
    ctx.response.header('Referrer-Policy', 'no-referrer')
    ctx.response.header('Cache-Control', 'no-store')
    const outcome = await secureAccount(ctx, ctx.params.token)
    if (outcome.status !== 'secured') {
      ctx.response.status(404)
      return ctx.view.render('auth/secured', { secured: false, message: SECURE_MESSAGES.invalid })
    }
    // This browser too: its login (already ended server-side) and its session go.
    await ctx.auth.logout()
    return ctx.view.render('auth/secured', { secured: true, message: SECURE_MESSAGES.secured, email: outcome.user.email ?? null })
  },
}
