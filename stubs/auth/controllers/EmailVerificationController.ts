import type { HttpContext } from 'trowel'
import { EmailVerificationForms } from 'trowel/auth'

export class EmailVerificationController {
  /** GET /email/verify: the "check your inbox" page with a button to send the link again. */
  notice(ctx: HttpContext) {
    return EmailVerificationForms.notice(ctx)
  }

  /** POST /email/verification-notification: a new link (a few an hour per account). */
  resend(ctx: HttpContext) {
    return EmailVerificationForms.resend(ctx)
  }

  /** GET /email/verify/@token: verifies the address (or applies an e-mail change), 302 to /home. */
  verify(ctx: HttpContext) {
    return EmailVerificationForms.verify(ctx)
  }
}
