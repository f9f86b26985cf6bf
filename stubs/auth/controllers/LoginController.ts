import type { HttpContext } from 'trowel'
import { AuthForms } from 'trowel/auth'

export class LoginController {
  /** GET /login: the login form. */
  show(ctx: HttpContext) {
    return AuthForms.showLogin(ctx)
  }

  /** POST /login: 302 to /home, or back to /login with "The email or password is incorrect." */
  store(ctx: HttpContext) {
    return AuthForms.login(ctx)
  }

  /** POST /logout: revokes this device's login, 302 to /login. */
  logout(ctx: HttpContext) {
    return AuthForms.logout(ctx)
  }
}
