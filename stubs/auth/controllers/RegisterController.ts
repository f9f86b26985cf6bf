import type { HttpContext } from 'trowel'
import { AuthForms } from 'trowel/auth'

export class RegisterController {
  /** GET /register: the registration form. */
  show(ctx: HttpContext) {
    return AuthForms.showRegister(ctx)
  }

  /** POST /register: creates the user, logs in, 302 to /home; invalid input goes back with errors. */
  store(ctx: HttpContext) {
    return AuthForms.register(ctx)
  }
}
