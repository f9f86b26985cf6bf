/**
 * @module auth/mail/default-email-change-notice
 * The notice sent to an account's current address when someone asks to move the account to
 * another address (used when the app has no `app/mailables/EmailChangedNotice.ts`). `secureUrl`
 * is the "This wasn't me" link, or '' when there is none.
 */
import { Mailable } from '../../mail/index.js'

export class DefaultEmailChangeNotice extends Mailable {
  constructor(
    private readonly user: { name?: string; email: string },
    private readonly newEmail: string,
    private readonly secureUrl: string = '',
  ) {
    super()
  }

  override async build() {
    this.to(this.user.email)
      .subject('Your e-mail address is being changed')
      .view('mailables/auth/email_change_notice', { user: this.user, new_email: this.newEmail, secure_url: this.secureUrl })
  }
}
