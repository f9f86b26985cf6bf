import type { HttpContext } from 'trowel'
import { SecureAccountForms } from 'trowel/auth'

export class SecureAccountController {
  /**
   * /account/secure/@token: the "This wasn't me" link of the security e-mails. GET (and HEAD)
   * change nothing and show templates/auth/secure.html, whose button POSTs to the same path; the
   * POST logs every device out, removes what the e-mail reported and what was added since, locks
   * the password until it is reset, mails a reset link, and redirects to /account/secured.
   */
  secure(ctx: HttpContext) {
    return SecureAccountForms.secure(ctx)
  }

  /** GET /account/secured: templates/auth/secured.html, with the remaining sign-in methods. */
  secured(ctx: HttpContext) {
    return SecureAccountForms.secured(ctx)
  }
}
