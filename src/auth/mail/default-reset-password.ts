/**
 * @module auth/mail/default-reset-password
 * The reset e-mail used when the app has no `app/mailables/ResetPassword.ts` of its own.
 */
import { Mailable } from '../../mail/index.js'

export class DefaultResetPassword extends Mailable {
  constructor(private readonly user: { name?: string; email: string }, private readonly url: string, private readonly expiresIn: number | null) {
    super()
  }

  override async build() {
    this.to(this.user.email)
      .subject('Reset your password')
      .view('mailables/auth/reset_password', { user: this.user, url: this.url, expires_in: this.expiresIn })
  }
}
