import { Mailable } from 'trowel'
import type { SecurityNotice as Notice } from 'trowel/auth'

/**
 * The security e-mails (new device, password or e-mail changed, account locked...), each with a
 * "This wasn't me" link. Edit the text in templates/mailables/auth/security_notice.html;
 * `notice.kind` tells which one is being sent.
 */
export class SecurityNotice extends Mailable {
  constructor(
    private readonly user: { name?: string; email: string },
    private readonly notice: Notice,
  ) {
    super()
  }

  async build() {
    this.to(this.notice.to)
      .subject(this.notice.subject)
      .view('mailables/auth/security_notice', { user: this.user, notice: this.notice })
  }
}
