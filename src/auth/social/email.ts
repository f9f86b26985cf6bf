/**
 * @module auth/social/email
 * A provider that gave no verified address (the pre-hijack defence: an account is never made
 * from an address nobody proved): the user gives one at `GET`/`POST /auth/@provider/email`, which
 * answers the same whether or not the address has an account and mails a link (after the answer).
 * `GET /auth/@provider/email/@token` (and HEAD) changes nothing; its button POSTs to the same path,
 * which, within 60 minutes and once, creates the account and its identity and logs in — or, when
 * the address has an account by then, asks for a login to it to link the identity. The link works
 * only in the browser that signed in with the provider: otherwise whoever signed in could have
 * the address's owner confirm, from their own mailbox, an account that the signer's identity
 * opens. Each mail costs a slot of the client's `ip` budget.
 */
import { appName as nameOfApp } from '../../foundation/config-files.js'
import type { HttpContext } from '../../http/context.js'
import { Mailable, type Mailer } from '../../mail/index.js'
import { validate } from '../../validation/index.js'
import { normalizeEmail } from '../email.js'
import { AUTH_MESSAGES } from '../messages.js'
import { clientKey } from '../throttle/client-key.js'
import { answerLogin, LINK_KEY, PROFILE_KEY, servedProvider, social, SOCIAL_MESSAGES, failed } from './forms.js'
import { newSecret } from './store.js'

/** Minutes a confirmation link lives. */
export const EMAIL_LINK_MINUTES = 60

class SocialEmailConfirmation extends Mailable {
  constructor(
    private readonly address: string,
    private readonly body: { url: string; provider: string; appName: string },
  ) {
    super()
  }

  override async build() {
    this.to(this.address)
      .subject(`Confirm your address for ${this.body.appName}`)
      .text(
        `Someone signed in to ${this.body.appName} with ${this.body.provider} and gave this address.\n\n` +
          `If it was you, open this link and confirm, within ${EMAIL_LINK_MINUTES} minutes:\n${this.body.url}\n\n` +
          'If it was not you, ignore this e-mail: nothing happens without it.\n',
      )
  }
}

function noStore(ctx: HttpContext): void {
  ctx.response.header('Cache-Control', 'no-store')
  ctx.response.header('Referrer-Policy', 'no-referrer')
}

export const SocialEmailForms = {
  /** GET /auth/@provider/email */
  async show(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    noStore(ctx)
    const row = await service.store.peekPending(ctx.session.get<string>(PROFILE_KEY), 'profile')
    if (!row || row.provider !== provider.name || !service.sameBrowser(ctx, row)) return failed(ctx, SOCIAL_MESSAGES.linkExpired)
    return ctx.view.render('auth/social_email', { provider: provider.label, action: `/auth/${provider.name}/email` })
  },

  /** POST /auth/@provider/email (`email`) */
  async send(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    noStore(ctx)
    const data = await validate(ctx.request.body, { email: 'required|string|email|max:255' })
    const secret = ctx.session.get<string>(PROFILE_KEY)
    const peek = await service.store.peekPending(secret, 'profile')
    if (!peek || peek.provider !== provider.name || !service.sameBrowser(ctx, peek)) return failed(ctx, SOCIAL_MESSAGES.linkExpired)
    const row = await service.store.takePending(secret, 'profile')
    ctx.session.forget(PROFILE_KEY)
    if (!row) return failed(ctx, SOCIAL_MESSAGES.linkExpired)
    const address = normalizeEmail(data.email)
    // Each mail costs a slot of the client's `ip` budget.
    const ip = service.manager.budgets.ip
    const wait = await ip.take(ip.key(clientKey(ctx.request.ip())))
    if (wait !== null) return failed(ctx, AUTH_MESSAGES.throttled(wait))
    const token = newSecret()
    await service.store.putPending(token, { kind: 'email', provider: provider.name, intent: 'login', browser: service.browser(ctx), data: { subject: row.data.subject, name: row.data.name ?? null, email: address } }, EMAIL_LINK_MINUTES)
    const url = `${service.appUrl()}/auth/${provider.name}/email/${token}`
    const appName = nameOfApp(ctx.app)
    const where = { ip: ctx.request.ip(), request_id: ctx.request.id }
    ctx.app.background(
      () => ctx.app.make<Mailer>('mailer').send(new SocialEmailConfirmation(address, { url, provider: provider.label, appName })),
      (error) => ctx.app.log.error('auth.social_email_failed', { ...where, error: error instanceof Error ? error.message : String(error) }),
    )
    if (ctx.request.wantsJson()) {
      ctx.response.status(202)
      return { message: SOCIAL_MESSAGES.emailSent }
    }
    ctx.session.flash('success', SOCIAL_MESSAGES.emailSent)
    return ctx.response.redirect('/login')
  },

  /** GET /auth/@provider/email/@token (and HEAD): changes nothing. */
  async showLink(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    noStore(ctx)
    const token = String(ctx.params.token ?? '')
    const row = await service.store.peekPending(token, 'email')
    const valid = row !== null && row.provider === provider.name && service.sameBrowser(ctx, row)
    const message = row && !service.sameBrowser(ctx, row) ? SOCIAL_MESSAGES.emailOtherBrowser : SOCIAL_MESSAGES.emailInvalid
    return ctx.view.render('auth/social_email_link', { invalid: !valid, message: valid ? null : message, provider: provider.label, email: valid ? row.data.email : null, action: `/auth/${provider.name}/email/${token}` })
  },

  /** POST /auth/@provider/email/@token */
  async confirm(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    noStore(ctx)
    if (await ctx.auth.check()) return ctx.response.redirect('/home')
    const peek = await service.store.peekPending(String(ctx.params.token ?? ''), 'email')
    if (!peek || peek.provider !== provider.name || !service.sameBrowser(ctx, peek)) return failed(ctx, SOCIAL_MESSAGES.emailInvalid)
    const row = await service.store.takePending(String(ctx.params.token ?? ''), 'email')
    if (!row) return failed(ctx, SOCIAL_MESSAGES.emailInvalid)
    // The mailbox is proven: the address now counts as verified for this identity.
    const profile = { subject: String(row.data.subject), email: String(row.data.email), emailVerified: true, name: (row.data.name as string | null) ?? null, accessToken: null, refreshToken: null }
    const linked = await service.loginOf(provider, profile)
    if (linked) return answerLogin(ctx, service, provider, linked, null)
    const existing = await service.findUser(profile.email)
    if (existing) {
      const secret = await service.pendingLink(ctx, provider, profile, existing.getKey())
      ctx.session.put(LINK_KEY, secret)
      return ctx.response.redirect(`/auth/${provider.name}/link`)
    }
    if (!service.registers()) return failed(ctx, SOCIAL_MESSAGES.closed)
    return answerLogin(ctx, service, provider, await service.createAccount(ctx, provider, profile), null)
  },
}
