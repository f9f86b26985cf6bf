import type { HttpContext } from 'trowel'
import { EmailLoginForms } from 'trowel/auth'

export class EmailLoginController {
  /** GET /login/email: asks for the e-mail address. */
  show(ctx: HttpContext) {
    return EmailLoginForms.show(ctx)
  }

  /** POST /login/email: mails a sign-in link and code when the address has an account; the same answer either way. */
  send(ctx: HttpContext) {
    return EmailLoginForms.send(ctx)
  }

  /** GET /login/email/sent: "check your inbox", and the code form. */
  sent(ctx: HttpContext) {
    return EmailLoginForms.sent(ctx)
  }

  /** POST /login/email/code: signs in with the mailed code. */
  code(ctx: HttpContext) {
    return EmailLoginForms.code(ctx)
  }

  /** GET /login/email/@token: "Sign in as …?" with a button (changes nothing). */
  showLink(ctx: HttpContext) {
    return EmailLoginForms.showLink(ctx)
  }

  /** POST /login/email/@token: signs in with the mailed link. */
  link(ctx: HttpContext) {
    return EmailLoginForms.link(ctx)
  }
}
