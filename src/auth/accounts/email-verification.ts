/**
 * @module auth/accounts/email-verification
 * E-mail verification and e-mail change: the links `<APP_URL>/email/verify/<token>` and what
 * opening one does.
 *
 * A link is a `verify_email` row of `user_tokens` (32 random bytes, only the SHA-256 stored,
 * 60 minutes, single use) whose `email` is the address it proves. A user has at most one live
 * link: a new one (resend, another change request) replaces the earlier ones. Opening a link
 * (`verifyEmail`) consumes the row and applies its effect in one transaction, so of any number
 * of concurrent requests with one link exactly one succeeds:
 * - the row's address is the account's address (compared normalised): `email_verified_at` is
 *   set, `auth:email_verified` emitted;
 * - it is another address (an e-mail change): the account's address becomes it, if no other
 *   account holds it (without case), and is verified; `auth:email_verified` and
 *   `auth:email_changed` are emitted. A taken address changes nothing (`status: 'taken'`).
 * The link only ever proves the address stored with it: a link for an address the account no
 * longer wants (replaced by a later request) is gone, and a link never verifies another address.
 *
 * E-mails are sent in the background (like reset e-mails): a slow or failing mail server never
 * delays or fails the request; failures are logged (`auth.verify_mail_failed`,
 * `auth.email_change_notice_failed`).
 */
import type { Knex } from 'knex'
import type { HttpContext } from '../../http/context.js'
import type { Application } from '../../foundation/application.js'
import type { Mailer, Mailable } from '../../mail/index.js'
import { db } from '../../database/database-manager.js'
import { whereEmail } from '../../database/where-caseless.js'
import { UniqueConstraintError, translateDatabaseError } from '../../database/errors.js'
import { normalizeEmail } from '../email.js'
import { eventBase } from '../events.js'
import { AuthConfigError } from '../errors.js'
import { isVerified } from './verification.js'
import { DefaultVerifyEmail } from '../mail/default-verify-email.js'
import { DefaultEmailChangeNotice } from '../mail/default-email-change-notice.js'

/** Minutes a verification link stays valid. */
export const VERIFY_EMAIL_MINUTES = 60

/** What opening a verification link did. */
export type VerifyEmailOutcome =
  /** `email` is now the account's verified address; `from` is the address before a change (else null). */
  | { status: 'verified'; user: any; email: string; from: string | null }
  /** Unknown, used or expired: nothing changed. */
  | { status: 'invalid' }
  /** An e-mail change whose address another account took meanwhile: nothing changed, the link is used up. */
  | { status: 'taken'; email: string }

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

/** `APPLICATION.url` (else `APP_URL`) without a trailing slash, as in reset links. */
function appUrl(app: Application): string {
  return String(app.config('application')?.APPLICATION?.url ?? process.env.APP_URL ?? 'http://localhost:8000').replace(/\/+$/, '')
}

/** Sends `build()`'s mailable without waiting; a failure is logged as `<what>_failed`, never thrown. */
function sendInBackground(app: Application, what: string, userId: unknown, build: () => Mailable): void {
  const fail = (error: unknown) => {
    try {
      app.log.error(`auth.${what}_failed`, { user_id: userId, error: error instanceof Error ? error.message : String(error) })
    } catch {
      // Logging must never become an unhandled rejection.
    }
  }
  setImmediate(() => {
    Promise.resolve()
      .then(() => app.make<Mailer>('mailer').send(build()))
      .then(() => app.log.info(`auth.${what}_sent`, { user_id: userId }), fail)
      .catch(fail)
  })
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
  const query = (trx ?? db())(model.getTable()).select(model.getPrimaryKey())
  const row = await whereEmail(query, authColumn(ctx), email).whereNot(model.getPrimaryKey(), exceptUserId as string | number).first()
  return Boolean(row)
}

/**
 * Starts an e-mail change of `user` to `newEmail` (already validated, free and not the current
 * address): a link to the new address (replacing any pending link) and a notice to the current
 * one, with a "This wasn't me" link when `auth.secure_link` is bound (the security notifications
 * bind it). Nothing about the account changes until the link is opened. Returns the link's token.
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

/**
 * Opens a verification link: see the module comment. Whether or not anyone is logged in (the
 * link is the proof). Emits the events after the transaction has committed.
 */
export async function verifyEmail(ctx: HttpContext, token: unknown): Promise<VerifyEmailOutcome> {
  const mgr = manager(ctx)
  const model = modelOf(ctx)
  const table: string = model.getTable()
  const pk: string = model.getPrimaryKey()
  const column = authColumn(ctx)
  const timestamps = typeof model.usesTimestamps === 'function' ? Boolean(model.usesTimestamps()) : false
  type Applied = { status: 'verified'; userId: unknown; email: string; from: string | null; changed: boolean } | { status: 'invalid' } | { status: 'taken'; email: string }
  let applied: Applied
  let wantedEmail = ''
  try {
    applied = await db().transaction(async (trx): Promise<Applied> => {
      const row = await mgr.userTokens.consume(token, 'verify_email', trx)
      if (!row || typeof row.email !== 'string' || row.email === '') return { status: 'invalid' }
      const record = await trx(table).where(pk, row.user_id as string | number).first()
      if (!record) return { status: 'invalid' }
      const current = String(record[column] ?? '')
      const wanted = normalizeEmail(row.email)
      wantedEmail = wanted
      const now = new Date()
      if (normalizeEmail(current) === wanted) {
        // The account's own address: verified (kept as it is when it already was).
        if (isVerified(record)) return { status: 'verified', userId: row.user_id, email: current, from: null, changed: false }
        await trx(table).where(pk, row.user_id as string | number).update({ email_verified_at: now })
        return { status: 'verified', userId: row.user_id, email: current, from: null, changed: true }
      }
      // An e-mail change: the new address must still be free (the unique index backs this up).
      if (await emailTaken(ctx, wanted, row.user_id, trx)) return { status: 'taken', email: wanted }
      const changes: Record<string, unknown> = { [column]: wanted, email_verified_at: now }
      if (timestamps) changes.updated_at = now
      await trx(table).where(pk, row.user_id as string | number).update(changes)
      // Reset links mailed to the old address die with it; so does any other pending link.
      const resets = mgr.resolved.passwordResetTable
      if (await trx.schema.hasTable(resets)) await trx(resets).where('email', current).delete()
      await mgr.userTokens.revokeAll(row.user_id, 'verify_email', trx)
      return { status: 'verified', userId: row.user_id, email: wanted, from: current, changed: true }
    })
  } catch (error) {
    // Another account took the address between the check and the update: nothing was changed
    // (the whole transaction, the link's use included, was rolled back).
    if (translateDatabaseError(error, { table }) instanceof UniqueConstraintError) return { status: 'taken', email: wantedEmail }
    throw error
  }
  if (applied.status !== 'verified') return applied
  const user = await model.find(applied.userId)
  if (!user) return { status: 'invalid' }
  if (applied.changed) {
    const guard = ctx.auth.guardName
    mgr.events.emit('auth:email_verified', { ...eventBase(ctx, guard, user), email: applied.email })
    if (applied.from !== null) mgr.events.emit('auth:email_changed', { ...eventBase(ctx, guard, user), from: applied.from, to: applied.email })
  }
  return { status: 'verified', user, email: applied.email, from: applied.from }
}
