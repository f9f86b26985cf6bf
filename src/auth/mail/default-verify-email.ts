/**
 * @module auth/mail/default-verify-email
 * The verification e-mail used when the app has no `app/mailables/VerifyEmail.ts` of its own.
 * `address` is where it goes: the account's address after registration, the new one for an
 * e-mail change.
 */
import { Mailable } from '../../mail/index.js'

export class DefaultVerifyEmail extends Mailable {
  constructor(
    private readonly user: { name?: string; email: string },
    private readonly url: string,
    private readonly expiresIn: number,
    private readonly address: string = user.email,
  ) {
    super()
  }

  override async build() {
    const change = this.address.toLowerCase() !== String(this.user.email).toLowerCase()
    this.to(this.address)
      .subject(change ? 'Confirm your new e-mail address' : 'Verify your e-mail address')
      .view('mailables/auth/verify_email', { user: this.user, url: this.url, expires_in: this.expiresIn, email: this.address, change })
  }
}
