import type { HttpContext } from 'trowel'
import { AccountForms, EmailVerificationForms } from 'trowel/auth'

export class AccountController {
  /** GET /account: the profile page (name, e-mail, password and delete forms). */
  show(ctx: HttpContext) {
    return AccountForms.show(ctx)
  }

  /** POST /account/profile: saves the name; 302 back to /account with "Profile saved." */
  updateProfile(ctx: HttpContext) {
    return AccountForms.updateProfile(ctx)
  }

  /** POST /account/email: mails a link to the new address; the change takes effect once it is opened. */
  changeEmail(ctx: HttpContext) {
    return EmailVerificationForms.changeEmail(ctx)
  }

  /** POST /account/password: checks the current password, sets the new one, logs out every other device. */
  changePassword(ctx: HttpContext) {
    return AccountForms.changePassword(ctx)
  }

  /** POST /account/delete (behind password.confirm): deletes the account and logs out; 302 to /. */
  destroy(ctx: HttpContext) {
    return AccountForms.destroy(ctx)
  }
}
