import type { HttpContext } from 'trowel'
import { AuthForms } from 'trowel/auth'

export class PasswordResetController {
  /** GET /password_reset: asks for the e-mail address. */
  show(ctx: HttpContext) {
    return AuthForms.showPasswordReset(ctx)
  }

  /** POST /password_reset: e-mails a link when the address exists; the same answer either way. */
  send(ctx: HttpContext) {
    return AuthForms.sendPasswordReset(ctx)
  }

  /** GET /change_password/@token: the new-password form. */
  change(ctx: HttpContext) {
    return AuthForms.showChangePassword(ctx)
  }

  /** POST /change_password/@token: sets the new password, logs out every device, 302 to /login. */
  update(ctx: HttpContext) {
    return AuthForms.changePassword(ctx)
  }
}
