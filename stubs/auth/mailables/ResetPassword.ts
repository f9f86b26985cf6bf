import { Mailable } from 'trowel'

/** The password-reset e-mail. Edit the text in templates/mailables/auth/reset_password.html. */
export class ResetPassword extends Mailable {
  constructor(
    private readonly user: { name?: string; email: string },
    private readonly url: string,
    private readonly expiresIn: number | null,
  ) {
    super()
  }

  async build() {
    this.to(this.user.email)
      .subject('Reset your password')
      .view('mailables/auth/reset_password', { user: this.user, url: this.url, expires_in: this.expiresIn })
  }
}
