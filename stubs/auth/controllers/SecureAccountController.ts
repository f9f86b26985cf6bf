import type { HttpContext } from 'trowel'
import { SecureAccountForms } from 'trowel/auth'

export class SecureAccountController {
  /**
   * GET /account/secure/@token: the "This wasn't me" link of the security e-mails. Logs every
   * device out, sends a password-reset link, and shows templates/auth/secured.html.
   */
  secure(ctx: HttpContext) {
    return SecureAccountForms.secure(ctx)
  }
}
