import { Mailable } from 'trowel'

/**
 * The e-mail with the verification link, sent after registration, on "send the link again", and
 * to the new address of an e-mail change (`address`). Edit the text in
 * templates/mailables/auth/verify_email.html.
 */
export class VerifyEmail extends Mailable {
  constructor(
    private readonly user: { name?: string; email: string },
    private readonly url: string,
    private readonly expiresIn: number,
    private readonly address: string = user.email,
  ) {
    super()
  }

  async build() {
    const change = this.address.toLowerCase() !== String(this.user.email).toLowerCase()
    this.to(this.address)
      .subject(change ? 'Confirm your new e-mail address' : 'Verify your e-mail address')
      .view('mailables/auth/verify_email', { user: this.user, url: this.url, expires_in: this.expiresIn, email: this.address, change })
  }
}
