import type { HttpContext } from 'trowel'
import { ConfirmPasswordForms } from 'trowel/auth'

export class ConfirmPasswordController {
  /** GET /confirm-password: asks for the password again before a sensitive page or action. */
  show(ctx: HttpContext) {
    return ConfirmPasswordForms.show(ctx)
  }

  /** POST /confirm-password: right password → back to where `password.confirm` stopped you; wrong → back with an error. */
  store(ctx: HttpContext) {
    return ConfirmPasswordForms.confirm(ctx)
  }
}
