import type { HttpContext } from 'trowel'
import { InvitationForms } from 'trowel/auth'

export class InvitationsController {
  /** GET /invitations/@token: shows the invitation (changes nothing). */
  show(ctx: HttpContext) {
    return InvitationForms.show(ctx)
  }

  /** POST /invitations/@token: accepts it (logged in with the invited address). */
  accept(ctx: HttpContext) {
    return InvitationForms.accept(ctx)
  }
}
