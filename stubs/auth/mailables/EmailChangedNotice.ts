import { Mailable } from 'trowel'

/**
 * The notice to the current address when someone asks to move the account to `newEmail`.
 * `secureUrl` is the "This wasn't me" link ('' when there is none). Edit the text in
 * templates/mailables/auth/email_change_notice.html.
 */
export class EmailChangedNotice extends Mailable {
  constructor(
    private readonly user: { name?: string; email: string },
    private readonly newEmail: string,
    private readonly secureUrl: string = '',
  ) {
    super()
  }

  async build() {
    this.to(this.user.email)
      .subject('Your e-mail address is being changed')
      .view('mailables/auth/email_change_notice', { user: this.user, new_email: this.newEmail, secure_url: this.secureUrl })
  }
}
