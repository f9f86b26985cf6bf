import type { HttpContext } from 'trowel'
import { AuthForms } from 'trowel/auth'

export class HomeController {
  /** GET /home: greets the logged-in user (the `auth` middleware sends visitors to /login). */
  show(ctx: HttpContext) {
    return AuthForms.home(ctx)
  }
}
