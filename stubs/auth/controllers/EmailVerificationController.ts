import type { HttpContext } from 'trowel'
import { EmailVerificationForms } from 'trowel/auth'

export class EmailVerificationController {
  /** GET /email/verify: the "check your inbox" page with a button to send the link again. */
  notice(ctx: HttpContext) {
    return EmailVerificationForms.notice(ctx)
  }

  /** POST /email/verification-notification: a new link (a few a minute per account). */
  resend(ctx: HttpContext) {
    return EmailVerificationForms.resend(ctx)
  }

  /**
   * GET /email/verify/@token: the mailed link's page, which changes nothing (mail scanners open
   * links too). POST /email/verify/@token: its button verifies the address, or applies an e-mail
   * change when logged in as that account; then 302 to /home.
   */
  verify(ctx: HttpContext) {
    return EmailVerificationForms.verify(ctx)
  }
}
