/**
 * @module auth/mail/default-security-notice
 * The security e-mail ("a new device logged in", "your password was changed"...) used when the
 * app has no `app/mailables/SecurityNotice.ts` of its own. Every notice carries what happened,
 * when, from which address and browser, and the one-click "This wasn't me" link.
 */
import { Mailable } from '../../mail/index.js'

/**
 * The kinds of security e-mail (one per event; see security-notifications.ts). A feature whose
 * events send one adds its kinds by augmenting this interface (`declare module`).
 */
export interface SecurityNoticeKinds {
  new_device: true
  password_changed: true
  password_reset: true
  email_changed: true
  account_locked: true
  passkey_added: true
  passkey_removed: true
  social_linked: true
  token_reuse: true
  token_created: true
}

/** What a security e-mail is about. */
export type SecurityNoticeKind = keyof SecurityNoticeKinds

/** Everything a security e-mail shows. Never a password, a token other than the link, or a cookie. */
export interface SecurityNotice {
  kind: SecurityNoticeKind
  /** The address the notice goes to (the account's, or its former one for `email_changed`). */
  to: string
  subject: string
  /** One sentence: what happened. */
  summary: string
  /** When it happened, and the same as text (`2025-01-31 14:05 UTC`). */
  at: Date
  when: string
  /** The client's address and browser ("Firefox 132 on Linux"), when known. */
  ip: string | null
  browser: string | null
  /** The "This wasn't me" link `<APP_URL>/account/secure/<token>` (single use, 7 days). */
  secureUrl: string
  /** Minutes the link stays valid. */
  secureMinutes: number
  /**
   * What the link does to the app's JWTs: `ended` (refused from then on), `kept` (they verify
   * alone until they expire: the mail must not say they end), null (the app has no JWT API).
   */
  apiTokens?: 'ended' | 'kept' | null
  /** The new address, for `email_changed`. */
  newEmail?: string
}

export class DefaultSecurityNotice extends Mailable {
  constructor(
    private readonly user: { name?: string; email: string },
    private readonly notice: SecurityNotice,
  ) {
    super()
  }

  override async build() {
    this.to(this.notice.to)
      .subject(this.notice.subject)
      .view('mailables/auth/security_notice', { user: this.user, notice: this.notice })
  }
}
