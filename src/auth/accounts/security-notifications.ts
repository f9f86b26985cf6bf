/**
 * @module auth/accounts/security-notifications
 * The security e-mails of `GUARDS.notifications`: listeners on `app.events` that e-mail the
 * account's owner when something happens to the account, each with a one-click "This wasn't me"
 * link `<APP_URL>/account/secure/<token>` (see secure-account.ts).
 *
 * | Switch | Events | Sent to |
 * |---|---|---|
 * | `new_device` | `auth:login_succeeded` with `knownDevice: false` (a password login on the web guard from a browser without this account's device cookie) | the account |
 * | `password_changed` | `auth:password_changed`, `auth:password_reset` | the account |
 * | `email_changed` | `auth:email_changed` | the former address (`from`) |
 * | `account_locked` | `auth:account_locked` | the account |
 * | `passkeys` | `auth:passkey_added`, `auth:passkey_removed` | the account |
 * | `token_reuse` | `auth:token_reuse_detected` | the account |
 * | `token_created` | `auth:token_created` (a personal access token made on `/account/tokens`) | the account |
 * | `social_linked` | `auth:social_linked` (an identity at a provider linked, automatically or not) | the account |
 *
 * A feature adds the notices of its events with its `securityNotices` (the same rules, with their
 * words): they are listened to like the core's, when their switch is on.
 *
 * Only the switches that are on get a listener (an app without `GUARDS.notifications` has them
 * all off). Listeners never delay or fail the request: the link is created and the e-mail sent
 * after the listener has returned, and a failure is logged (`auth.security_notice_failed`).
 * The link is a `secure` row of `user_tokens` (only its SHA-256 stored), valid 7 days; several
 * notices' links are all valid at once until one of them is used. The row records what the
 * notice reported: the address it was sent to (`email`: the reset goes there, and the account
 * goes back to it), and in `details` the event's time and the item it added (the event's
 * `item`, e.g. `{ kind: 'passkeys', id }`), so that using the link removes that item and every
 * way in created since (secure-account.ts).
 */
import { appUrl } from '../../foundation/config-files.js'
import type { Application } from '../../foundation/application.js'
import type { HttpContext } from '../../http/context.js'
import type { Mailable, Mailer } from '../../mail/index.js'
import { importAppModule } from '../../foundation/app-modules.js'
import { findModule } from '../../foundation/module-finder.js'
import type { ResolvedAuthConfig, NotificationName } from '../auth-config.js'
import type { AuthUser } from '../types.js'
import type { AuthFeatureModule, NoticeEvent, SecurityNoticeRule } from '../features/contract.js'
import { featuresOf } from '../features/registry.js'
import { DefaultSecurityNotice, type SecurityNotice, type SecurityNoticeKind } from '../mail/default-security-notice.js'
import { describeUserAgent } from './devices.js'
import { apiTokenRevocation } from './api-token-claims.js'

/** Minutes a "This wasn't me" link stays valid (7 days). */
export const SECURE_LINK_MINUTES = 10080

/** What a listener reads from an event's payload (every auth event has these). */
interface NoticePayload {
  user?: AuthUser | null
  userId?: unknown
  ip?: string
  userAgent?: string | null
  at?: Date
  knownDevice?: boolean
  from?: string
  to?: string
  retryAfter?: number
  /** The personal access token's name (`auth:token_created`). */
  name?: string
  /** The way in the event reports as added (contract of the inventory: its kind and id). */
  item?: { kind: string; id: unknown } | null
  passkeyId?: unknown
  /** `auth:social_linked`: the provider's name. */
  provider?: string
}

interface NoticeRule {
  /** The `GUARDS.notifications` switch that turns it on. */
  notification: NotificationName
  kind: SecurityNoticeKind
  /** False: this event does not call for a notice (a login from a known device). */
  when?: (event: NoticePayload) => boolean
}

/**
 * Event → notice, the core's (the features' are their `securityNotices`). Some of these events are
 * declared by features that may not be installed (passkeys, API token families): a listener on an
 * event nobody emits costs nothing.
 */
export const SECURITY_NOTICES: Readonly<Record<string, NoticeRule>> = {
  'auth:login_succeeded': { notification: 'new_device', kind: 'new_device', when: (e) => e.knownDevice === false },
  'auth:password_changed': { notification: 'password_changed', kind: 'password_changed' },
  'auth:password_reset': { notification: 'password_changed', kind: 'password_reset' },
  'auth:email_changed': { notification: 'email_changed', kind: 'email_changed' },
  'auth:account_locked': { notification: 'account_locked', kind: 'account_locked' },
  'auth:passkey_added': { notification: 'passkeys', kind: 'passkey_added' },
  'auth:passkey_removed': { notification: 'passkeys', kind: 'passkey_removed' },
  'auth:token_reuse_detected': { notification: 'token_reuse', kind: 'token_reuse' },
  'auth:token_created': { notification: 'token_created', kind: 'token_created' },
  'auth:social_linked': { notification: 'social_linked', kind: 'social_linked' },
}

/** The words of the core's notices, by kind. */
const TEXT: Readonly<Record<string, { subject: string; summary: (e: NoticePayload) => string }>> = {
  new_device: { subject: 'New login to your account', summary: () => 'Your account was just logged into from a device or browser that had not been used with it before.' },
  password_changed: { subject: 'Your password was changed', summary: () => 'The password of your account was changed.' },
  password_reset: { subject: 'Your password was reset', summary: () => 'The password of your account was reset with a link sent to your e-mail address.' },
  email_changed: { subject: 'Your e-mail address was changed', summary: (e) => `The e-mail address of your account was changed from ${e.from ?? 'this address'} to ${e.to ?? 'another address'}. This address no longer receives its e-mails.` },
  account_locked: {
    subject: 'Too many failed logins to your account',
    summary: (e) =>
      `Someone failed to log into your account too many times, so logins from new devices are paused${e.retryAfter ? ` for ${Math.max(1, Math.ceil(e.retryAfter / 60))} minutes` : ''}. Browsers you have logged in with before can still log in.`,
  },
  passkey_added: { subject: 'A passkey was added to your account', summary: () => 'A new passkey was added to your account: it can now be used to log in.' },
  passkey_removed: { subject: 'A passkey was removed from your account', summary: () => 'A passkey was removed from your account.' },
  token_reuse: {
    subject: 'An old API token of your account was used again',
    summary: () => 'An API token of your account that had already been replaced was presented again, which suggests it was copied. That device was logged out.',
  },
  social_linked: {
    subject: 'A sign-in provider was linked to your account',
    summary: (e) => `Your ${e.provider ?? 'provider'} account was linked to your account: it can now be used to sign in.`,
  },
  token_created: {
    subject: 'A personal access token was created for your account',
    summary: (e) =>
      `A personal access token${e.name ? ` named "${e.name}"` : ''} was created for your account: it can call the API as you until it expires or is revoked on the API tokens page.`,
  },
}

type NoticeMailable = new (user: AuthUser & { email: string; name?: string }, notice: SecurityNotice) => Mailable


/** What a "This wasn't me" link records beside its hashed token (`user_tokens.email` and `details`). */
export interface SecureLinkReport {
  /** The address the notice was sent to: the reset goes there, and the account goes back to it. */
  email: string | null
  /** When the reported event happened: ways in created at or after it (to the second) are removed. */
  at: Date
  /** The way in the event added (a passkey, the TOTP enrolment, a token), removed too. */
  item?: { kind: string; id: string } | null
}

/**
 * A new "This wasn't me" link for the user: `<APP_URL>/account/secure/<token>`. Earlier links
 * stay valid (each notice's link works) until one of them is used.
 */
export async function createSecureLink(app: Application, userId: unknown, report?: SecureLinkReport): Promise<string> {
  const details = report ? { at: report.at.toISOString(), item: report.item ?? null } : null
  const token = await app.make('auth.manager').userTokens.create(userId, 'secure', { minutes: SECURE_LINK_MINUTES, replace: false, email: report?.email ?? null, details })
  return `${appUrl(app)}/account/secure/${token}`
}

/** The item an event reports as added: its own `item`, else what older payloads carry. */
function reportedItem(name: string, rule: SecurityNoticeRule, event: NoticePayload, userId: unknown): SecureLinkReport['item'] {
  if (event.item && typeof event.item.kind === 'string') return { kind: event.item.kind, id: String(event.item.id) }
  if (name === 'auth:passkey_added' && event.passkeyId !== undefined && event.passkeyId !== null) return { kind: 'passkeys', id: String(event.passkeyId) }
  return rule.item?.(event as NoticeEvent, userId) ?? null
}

function formatWhen(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/** The event's user, loaded by `userId` when the event carries only the key. */
async function userOf(app: Application, event: NoticePayload): Promise<(AuthUser & Record<string, any>) | null> {
  if (event.user) return event.user as AuthUser & Record<string, any>
  if (event.userId === undefined || event.userId === null) return null
  const model = app.make('auth.manager').model
  return model ? ((await model.find(event.userId)) ?? null) : null
}

/** Builds and sends one notice; throws on failure (the caller logs). */
async function sendNotice(app: Application, name: string, rule: SecurityNoticeRule, event: NoticePayload): Promise<void> {
  const kind = rule.kind
  const user = await userOf(app, event)
  if (!user) return
  const column = app.make('auth.manager').model?.authColumn ?? 'email'
  const address = kind === 'email_changed' ? event.from : (user as Record<string, unknown>)[column]
  if (typeof address !== 'string' || address === '') return
  const at = event.at instanceof Date ? event.at : new Date()
  const notice: SecurityNotice = {
    kind,
    to: address,
    subject: rule.subject,
    summary: rule.summary(event as NoticeEvent),
    at,
    when: formatWhen(at),
    ip: event.ip ?? null,
    browser: event.userAgent ? describeUserAgent(event.userAgent) : null,
    secureUrl: await createSecureLink(app, user.getKey(), { email: address, at, item: reportedItem(name, rule, event, user.getKey()) }),
    secureMinutes: SECURE_LINK_MINUTES,
    apiTokens: apiTokenRevocation(app),
    ...(kind === 'email_changed' && typeof event.to === 'string' ? { newEmail: event.to } : {}),
  }
  const MailableClass = app.make<NoticeMailable>('auth.security_notice_mailable')
  await app.make<Mailer>('mailer').send(new MailableClass(user as AuthUser & { email: string }, notice))
  app.log.info('auth.security_notice_sent', { user_id: user.getKey(), kind })
}

/** Every notice by event name: the core's, with their words, then those of the features of `list`. */
export function securityNoticeRules(list: readonly AuthFeatureModule[]): Readonly<Record<string, SecurityNoticeRule>> {
  const core = Object.entries(SECURITY_NOTICES).map(([name, rule]): [string, SecurityNoticeRule] => {
    const text = TEXT[rule.kind]!
    return [name, { ...rule, subject: text.subject, summary: (e) => text.summary(e as NoticePayload), ...(rule.when ? { when: (e) => rule.when!(e as NoticePayload) } : {}) }]
  })
  return Object.fromEntries([...core, ...list.flatMap((f) => Object.entries(f.securityNotices ?? {}))])
}

/**
 * At boot (AuthProvider): binds the notice's mailable (`app/mailables/SecurityNotice.ts`, else the
 * framework's) and the link maker `auth.secure_link`, and listens to the events of the switches
 * that are on (`features`: the app's list, whose `securityNotices` join the core's).
 */
export async function installSecurityNotifications(app: Application, config: ResolvedAuthConfig, features: readonly AuthFeatureModule[] = featuresOf(app)): Promise<void> {
  const file = findModule(app.path('app/mailables/SecurityNotice'))
  const mod = file ? await importAppModule(file, 'app/mailables/SecurityNotice.ts') : {}
  app.bind('auth.security_notice_mailable', mod.SecurityNotice ?? mod.default ?? DefaultSecurityNotice)
  // Other mails (the e-mail change notice) put a "This wasn't me" link in with this.
  app.bind('auth.secure_link', (_ctx: HttpContext, user: AuthUser) => {
    const column = app.make('auth.manager').model?.authColumn ?? 'email'
    const address = (user as unknown as Record<string, unknown>)[column]
    return createSecureLink(app, user.getKey(), { email: typeof address === 'string' ? address : null, at: new Date() })
  })
  for (const [name, rule] of Object.entries(securityNoticeRules(features))) {
    if (!config.notifications[rule.notification]) continue
    // Some names are declared by optional features only: listen by name.
    const on = app.events.on as unknown as (name: string, listener: (event: NoticePayload) => void) => void
    on.call(app.events, name, (event) => {
      if (rule.when && !rule.when(event as NoticeEvent)) return
      // After the emitter's turn: nothing here runs inside, or delays, the request.
      app.background(
        () => sendNotice(app, name, rule, event),
        (error) =>
          app.log.error('auth.security_notice_failed', {
            kind: rule.kind,
            user_id: event.user?.getKey() ?? event.userId ?? null,
            error: error instanceof Error ? error.message : String(error),
          }),
      )
    })
  }
}
