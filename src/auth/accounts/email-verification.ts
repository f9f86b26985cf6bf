/**
 * @module auth/accounts/email-verification
 * E-mail verification and e-mail change: the links `<APP_URL>/email/verify/<token>` and what
 * opening one does.
 *
 * A link is a `verify_email` row of `user_tokens` (32 random bytes, only the SHA-256 stored,
 * 60 minutes, single use) whose `email` is the address it proves. A user has at most one live
 * link: a new one (resend, another change request) replaces the earlier ones. What opening and
 * confirming a link does is in `email-link.ts`. The link only ever proves the address stored with
 * it: a link for an address the account no longer wants (replaced by a later request) is gone,
 * and a link never verifies another address.
 *
 * E-mails are sent in the background (like reset e-mails): a slow or failing mail server never
 * delays or fails the request; failures are logged (`auth.verify_mail_failed`,
 * `auth.email_change_notice_failed`).
 */
import { appUrl } from '../../foundation/config-files.js'
import type { Knex } from 'knex'
import type { HttpContext } from '../../http/context.js'
import type { Application } from '../../foundation/application.js'
import type { Mailer, Mailable } from '../../mail/index.js'
import { whereEmail } from '../../database/where-caseless.js'
import { normalizeEmail } from '../email.js'
import { AuthConfigError } from '../errors.js'
import { DefaultVerifyEmail } from '../mail/default-verify-email.js'
import { DefaultEmailChangeNotice } from '../mail/default-email-change-notice.js'

/** Minutes a verification link stays valid. */
export const VERIFY_EMAIL_MINUTES = 60

/** A mailable class bound in the container (the app's own, or the framework's default). */
type MailableClass = new (...args: any[]) => Mailable

/** A user as the model gives it: attributes as properties, `getKey()`. */
type AccountUser = { getKey(): unknown; [attribute: string]: any }

function manager(ctx: HttpContext) {
  return ctx.auth.manager
}

function modelOf(ctx: HttpContext): any {
  const model = manager(ctx).model
  if (!model) throw new AuthConfigError('GUARDS.web.model is not set in config/auth.ts.')
  return model
}

function authColumn(ctx: HttpContext): string {
  return manager(ctx).model?.authColumn ?? 'email'
}

/** Sends `build()`'s mailable without waiting; a failure is logged as `<what>_failed`, never thrown. */
function sendInBackground(app: Application, what: string, userId: unknown, build: () => Mailable): void {
  app.background(
    async () => {
      await app.make<Mailer>('mailer').send(build())
      app.log.info(`auth.${what}_sent`, { user_id: userId })
    },
    (error) => app.log.error(`auth.${what}_failed`, { user_id: userId, error: error instanceof Error ? error.message : String(error) }),
  )
}

/**
 * Creates a verification link for `user` and e-mails it in the background: to `email` when given
 * (an e-mail change), else to the account's address. Earlier links of the user stop working.
 * Returns the token (for tests and custom flows; it is never stored). Call it after
 * `auth.register()` in your own registration flow; the generated one does when the
 * `email_verification` feature is on.
 */
export async function sendVerificationEmail(ctx: HttpContext, user: AccountUser, options: { email?: string } = {}): Promise<string> {
  const app = ctx.app
  const address = normalizeEmail(options.email ?? user[authColumn(ctx)])
  if (!address) throw new AuthConfigError('sendVerificationEmail: the user has no e-mail address.')
  const token = await manager(ctx).userTokens.create(user.getKey(), 'verify_email', { minutes: VERIFY_EMAIL_MINUTES, email: address })
  const url = `${appUrl(app)}/email/verify/${token}`
  const VerifyMailable: MailableClass = app.get<MailableClass>('auth.verify_mailable') ?? DefaultVerifyEmail
  // The mail's address is given apart from `user`: for a change it is not the account's (yet).
  sendInBackground(app, 'verify_mail', user.getKey(), () => new VerifyMailable(user, url, VERIFY_EMAIL_MINUTES, address))
  return token
}

/**
 * After a successful registration: the verification e-mail when `email_verification` is in
 * `GUARDS.features`. Never throws (the account exists and the user is logged in; a failure is
 * logged as `auth.verify_mail_failed`, and the "check your inbox" page can send a new link).
 */
export async function sendVerificationAfterRegistration(ctx: HttpContext, user: AccountUser): Promise<void> {
  if (!manager(ctx).resolved.features.has('email_verification')) return
  try {
    await sendVerificationEmail(ctx, user)
  } catch (error) {
    ctx.app.log.error('auth.verify_mail_failed', { user_id: user.getKey(), error: error instanceof Error ? error.message : String(error) })
  }
}

/**
 * True when another account than `exceptUserId` holds `email` (compared as accounts are:
 * normalised, without case).
 */
export async function emailTaken(ctx: HttpContext, email: string, exceptUserId: unknown, trx?: Knex | Knex.Transaction): Promise<boolean> {
  const model = modelOf(ctx)
  const query = (trx ?? manager(ctx).db())(model.getTable()).select(model.getPrimaryKey())
  const row = await whereEmail(query, authColumn(ctx), email).whereNot(model.getPrimaryKey(), exceptUserId as string | number).first()
  return Boolean(row)
}

/**
 * Starts an e-mail change of `user` to `newEmail` (already validated, free and not the current
 * address): a link to the new address (replacing any pending link) and a notice to the current
 * one, with a "This wasn't me" link when `auth.secure_link` is bound (the security notifications
 * bind it). Nothing about the account changes until the logged-in owner confirms the link.
 * Returns the link's token.
 */
export async function requestEmailChange(ctx: HttpContext, user: AccountUser, newEmail: string): Promise<string> {
  const app = ctx.app
  const address = normalizeEmail(newEmail)
  const token = await sendVerificationEmail(ctx, user, { email: address })
  // Always sent: the owner hears of the request while it can still be stopped. (The switchable
  // `email_changed` security notice is another mail, sent to the old address once it is done.)
  // The "This wasn't me" link, when the app binds a maker for it (`auth.secure_link`).
  const makeSecureLink = app.get<((ctx: HttpContext, user: AccountUser) => Promise<string>) | undefined>('auth.secure_link')
  let secureUrl = ''
  try {
    secureUrl = makeSecureLink ? await makeSecureLink(ctx, user) : ''
  } catch (error) {
    app.log.error('auth.secure_link_failed', { user_id: user.getKey(), error: error instanceof Error ? error.message : String(error) })
  }
  const NoticeMailable: MailableClass = app.get<MailableClass>('auth.email_change_mailable') ?? DefaultEmailChangeNotice
  sendInBackground(app, 'email_change_notice', user.getKey(), () => new NoticeMailable(user, address, secureUrl))
  return token
}
