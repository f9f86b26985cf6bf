/**
 * @module auth/organizations/mail
 * The invitation mail used when the app has no `app/mailables/OrganizationInvitation.ts`: who
 * invites, to which organisation and role, the link (`<APP_URL>/invitations/<token>`), and how long it lives.
 */
import { Mailable } from '../../mail/index.js'

export interface InvitationMail {
  organization: string
  role: string
  inviter: string
  url: string
  days: number
  appName: string
}

export class DefaultOrganizationInvitation extends Mailable {
  constructor(
    private readonly address: string,
    private readonly mail: InvitationMail,
  ) {
    super()
  }

  override async build() {
    this.to(this.address)
      .subject(`${this.mail.inviter} invited you to ${this.mail.organization} on ${this.mail.appName}`)
      .view('mailables/organizations/invitation', { ...this.mail, email: this.address })
  }
}
