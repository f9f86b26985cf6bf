/**
 * @module auth/social/forms
 * The sign-in pages of social login, served by the generated `SocialController`:
 * - `GET /auth/@provider/redirect[?next=/path]` (visitors; logged in: 302 /home) → 302 to the
 *   provider (JSON: 200 `{"data": {"url"}}`).
 * - `GET /auth/@provider/callback` (and Apple's `form_post` POST, CSRF-exempt, sent on as a GET so
 *   the Lax cookies come along): any failure → 302 /login with one message and
 *   `auth:login_failed` (method social); else the account rules of social.ts.
 * - `GET /auth/@provider/link`: "an account exists, log in to link"; once this browser has logged
 *   into that account (within `link_minutes`), the identity is linked.
 * - `GET`/`POST /auth/@provider/email`: the address to confirm when the provider gave no verified
 *   one; `GET`/`POST /auth/@provider/email/@token`: its mailed link (the POST creates the account).
 */
import type { HttpContext } from '../../http/context.js'
import { NotFoundError } from '../../http/errors.js'
import { sameSitePath } from '../../http/response.js'
import { eventBase } from '../events.js'
import { AuthConfigError } from '../errors.js'
import { AUTH_MESSAGES } from '../messages.js'
import { CONFIRM_INTENDED, markPasswordConfirmed } from '../middleware/password-confirm-middleware.js'
import type { AuthUser } from '../types.js'
import type { SocialProvider } from './config.js'
import { finishSocialLogin } from './login.js'
import type { Intent, LoginOutcome, Social, StartOptions } from './social.js'

export const SOCIAL_MESSAGES = {
  failed: 'The sign-in could not be completed. Please try again.',
  closed: 'No account uses this sign-in, and new accounts cannot be created here.',
  linked: (label: string) => `Your ${label} account is now linked: you can sign in with it.`,
  otherAccount: 'You logged into another account: the sign-in was not linked to it.',
  linkExpired: 'This link-up has expired. Sign in with the provider again.',
  emailSent: 'If the address can be used, a confirmation link is on its way: open it to finish creating your account.',
  emailInvalid: 'This confirmation link is invalid or has expired.',
  emailOtherBrowser: 'This link works only in the browser where you signed in with the provider. If you did not, ignore the e-mail.',
  notYours: (label: string) => `That ${label} account is not linked to yours: confirm with your password or a linked provider.`,
} as const

/** Session keys: the link-up and the address request waiting in this browser. */
export const LINK_KEY = 'auth.social.link'
export const PROFILE_KEY = 'auth.social.profile'

export function social(ctx: HttpContext): Social {
  const service = ctx.app.get<Social>('auth.social')
  if (!service) throw new AuthConfigError('Social login is off: add "social" to GUARDS.features in config/auth.ts.')
  return service
}

/** The served provider of the route, or 404. */
export function servedProvider(ctx: HttpContext): SocialProvider {
  const provider = social(ctx).provider(ctx.params.provider)
  if (!provider) throw new NotFoundError()
  return provider
}

function noStore(ctx: HttpContext): void {
  ctx.response.header('Cache-Control', 'no-store')
  ctx.response.header('Referrer-Policy', 'no-referrer')
}

/** The one failure answer: 302 /login (or the connections page) with the message, logged and emitted. */
export function failed(ctx: HttpContext, message: string = SOCIAL_MESSAGES.failed, back = '/login'): unknown {
  ctx.auth.manager.events.emit('auth:login_failed', { ...eventBase(ctx, ctx.auth.guardName, null), method: 'social' } as never)
  if (ctx.hasSession) ctx.session.flash('error', message)
  return ctx.response.redirect(back)
}

/**
 * Starts a round trip to the provider: 302 there (JSON: 200 `{"data": {"url"}}`); a start that
 * fails answers as `failed`, back to `back`.
 */
export async function toProvider(ctx: HttpContext, service: Social, provider: SocialProvider, intent: Intent, options: StartOptions, back?: string): Promise<unknown> {
  let url: string
  try {
    url = await service.start(ctx, provider, intent, options)
  } catch {
    return failed(ctx, SOCIAL_MESSAGES.failed, back)
  }
  if (ctx.request.wantsJson()) return { data: { url } }
  return ctx.response.redirect(url)
}

/** After an account is known: the login flow, then its redirect. */
async function logIn(ctx: HttpContext, service: Social, outcome: Extract<LoginOutcome, { kind: 'login' }>, provider: SocialProvider, next: string | null): Promise<unknown> {
  // A link-up waiting in this browser ends with this login, as with any other (see install.ts).
  const done = await finishSocialLogin(ctx, { user: outcome.user, next, details: { provider: provider.name } })
  return ctx.response.redirect(done.redirect)
}

/** Where a login-intent round trip leads. */
export async function answerLogin(ctx: HttpContext, service: Social, provider: SocialProvider, outcome: LoginOutcome, next: string | null): Promise<unknown> {
  switch (outcome.kind) {
    case 'login':
      return logIn(ctx, service, outcome, provider, next)
    case 'link':
      ctx.session.put(LINK_KEY, outcome.secret)
      return ctx.response.redirect(`/auth/${provider.name}/link`)
    case 'email':
      ctx.session.put(PROFILE_KEY, outcome.secret)
      return ctx.response.redirect(`/auth/${provider.name}/email`)
    case 'closed':
      return failed(ctx, SOCIAL_MESSAGES.closed)
    case 'throttled':
      return failed(ctx, AUTH_MESSAGES.throttled(outcome.retryAfter))
  }
}

/** The confirm callback: the identity must be the logged-in user's own. */
async function confirmCallback(ctx: HttpContext, service: Social, provider: SocialProvider, subject: string, userId: unknown): Promise<unknown> {
  const user = (await ctx.auth.check()) ? ctx.auth.user<AuthUser>() : null
  const identity = await service.store.findIdentity(provider.name, subject)
  if (!user || String(user.getKey()) !== String(userId) || !identity || String(identity.user_id) !== String(userId)) {
    return failed(ctx, SOCIAL_MESSAGES.notYours(provider.label), user ? '/confirm-password' : '/login')
  }
  markPasswordConfirmed(ctx)
  const intended = sameSitePath(ctx.session.get<string>(CONFIRM_INTENDED)) ?? '/account'
  ctx.session.forget(CONFIRM_INTENDED)
  return ctx.response.redirect(intended)
}

/**
 * After a login in this browser: the pending link-up (if any) is used up — linked when the login
 * is to the account it was found for, discarded otherwise (any other login). Flashes the outcome.
 */
export async function completePendingLink(ctx: HttpContext, service: Social, user: AuthUser): Promise<'linked' | 'discarded' | 'none'> {
  if (!ctx.hasSession) return 'none'
  const secret = ctx.session.get<string>(LINK_KEY)
  if (typeof secret !== 'string') return 'none'
  ctx.session.forget(LINK_KEY)
  const row = await service.store.takePending(secret, 'link')
  if (!row) return 'none'
  const provider = service.provider(row.provider)
  if (!provider || String(user.getKey()) !== String(row.user_id) || !service.sameBrowser(ctx, row)) {
    ctx.session.flash('error', SOCIAL_MESSAGES.otherAccount)
    return 'discarded'
  }
  const result = await service.linkIdentity(ctx, user, provider, { subject: String(row.data.subject), email: (row.data.email as string | null) ?? null })
  ctx.session.flash(result.outcome === 'taken' ? 'error' : 'success', result.outcome === 'taken' ? SOCIAL_MESSAGES.failed : SOCIAL_MESSAGES.linked(provider.label))
  return result.outcome === 'taken' ? 'discarded' : 'linked'
}

export const SocialForms = {
  /** GET /auth/@provider/redirect */
  async redirect(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    if (await ctx.auth.check()) return ctx.response.redirect('/home')
    return toProvider(ctx, service, provider, 'login', { next: sameSitePath(ctx.request.input('next')) })
  },

  /** GET (and Apple's POST) /auth/@provider/callback */
  async callback(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    noStore(ctx)
    if (ctx.request.method === 'POST') {
      // A cross-site form post carries no Lax cookie: go on as a top-level GET, which does.
      const params = new URLSearchParams()
      for (const [k, v] of Object.entries(ctx.request.body ?? {})) if (typeof v === 'string' && k !== 'user') params.append(k, v)
      return ctx.response.redirect(`/auth/${provider.name}/callback?${params.toString()}`, 303)
    }
    const params = new URL(ctx.request.url, 'http://x').searchParams
    const result = await service.finish(ctx, provider, params)
    if (!result) return failed(ctx, SOCIAL_MESSAGES.failed, (await ctx.auth.check()) ? '/account/connections' : '/login')
    const { profile, state } = result
    if (state.intent === 'confirm') return confirmCallback(ctx, service, provider, profile.subject, state.user_id)
    if (state.intent === 'connect') {
      const { connectCallback } = await import('./connections.js')
      return connectCallback(ctx, service, provider, profile, state)
    }
    if (await ctx.auth.check()) return ctx.response.redirect('/home')
    const next = sameSitePath(state.data.next)
    return answerLogin(ctx, service, provider, await service.resolveLogin(ctx, provider, profile), next)
  },

  /**
   * POST /auth/@provider/confirm (logged in): `password.confirm` by a fresh round trip to a linked
   * provider (`prompt=login`, `max_age=0`: the provider must have just authenticated the user).
   */
  async confirm(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    const user = ctx.auth.user<AuthUser>()!
    const extras: Record<string, string> = service.driver(provider).oidc ? { prompt: 'login', max_age: '0' } : {}
    return toProvider(ctx, service, provider, 'confirm', { userId: user.getKey(), extras }, '/confirm-password')
  },

  /** GET /auth/@provider/link */
  async link(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    noStore(ctx)
    const secret = ctx.session.get<string>(LINK_KEY)
    const loggedIn = await ctx.auth.check()
    // Already settled by the login that just happened (or nothing was pending): the connections.
    if (typeof secret !== 'string' && loggedIn) return ctx.response.redirect('/account/connections')
    const row = await service.store.peekPending(secret, 'link')
    if (!row || row.provider !== provider.name || !service.sameBrowser(ctx, row)) {
      ctx.session.forget(LINK_KEY)
      if (ctx.hasSession) ctx.session.flash('error', SOCIAL_MESSAGES.linkExpired)
      return ctx.response.redirect(loggedIn ? '/home' : '/login')
    }
    if (loggedIn) {
      const outcome = await completePendingLink(ctx, service, ctx.auth.user<AuthUser>()!)
      return ctx.response.redirect(outcome === 'linked' ? '/account/connections' : '/home')
    }
    const email = typeof row.data.email === 'string' ? row.data.email : ''
    return ctx.view.render('auth/social_link', { provider: provider.label, email, next: `/auth/${provider.name}/link`, minutes: service.config.linkMinutes })
  },
}
