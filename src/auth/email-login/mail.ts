/**
 * @module auth/email-login/mail
 * The sign-in mail used when the app has no `app/mailables/EmailLogin.ts` of its own: the subject
 * carries the code (`<APP_NAME> sign-in code: 123456`, readable from a notification), the body the
 * code and the link, and how long both live.
 */
import { Mailable } from '../../mail/index.js'

export interface EmailLoginMail {
  code: string
  url: string
  minutes: number
  appName: string
  /** The account's name; null when the first use creates the account. */
  name: unknown
}

export class DefaultEmailLogin extends Mailable {
  constructor(
    private readonly address: string,
    private readonly mail: EmailLoginMail,
  ) {
    super()
  }

  override async build() {
    this.to(this.address)
      .subject(`${this.mail.appName} sign-in code: ${this.mail.code}`)
      .view('mailables/auth/email_login', { ...this.mail, email: this.address })
  }
}
