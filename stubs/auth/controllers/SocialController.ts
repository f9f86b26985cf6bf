import type { HttpContext } from 'trowel'
import { ConnectionForms, SocialEmailForms, SocialForms } from 'trowel/auth'

export class SocialController {
  /** GET /auth/@provider/redirect: off to the provider. */
  redirect(ctx: HttpContext) {
    return SocialForms.redirect(ctx)
  }

  /** GET (and Apple's POST) /auth/@provider/callback: back from the provider. */
  callback(ctx: HttpContext) {
    return SocialForms.callback(ctx)
  }

  /** POST /auth/@provider/confirm: confirms the password by a fresh round trip to a linked provider. */
  confirm(ctx: HttpContext) {
    return SocialForms.confirm(ctx)
  }

  /** GET /auth/@provider/link: an account with this address exists; log in to link. */
  link(ctx: HttpContext) {
    return SocialForms.link(ctx)
  }

  /** GET /auth/@provider/email: the provider gave no verified address; ask for one. */
  email(ctx: HttpContext) {
    return SocialEmailForms.show(ctx)
  }

  /** POST /auth/@provider/email: mails a confirmation link (the same answer for every address). */
  sendEmail(ctx: HttpContext) {
    return SocialEmailForms.send(ctx)
  }

  /** GET /auth/@provider/email/@token: a page with a button (changes nothing). */
  showEmailLink(ctx: HttpContext) {
    return SocialEmailForms.showLink(ctx)
  }

  /** POST /auth/@provider/email/@token: creates the account and signs in. */
  confirmEmail(ctx: HttpContext) {
    return SocialEmailForms.confirm(ctx)
  }

  /** GET /account/connections: the providers, connected or not. */
  connections(ctx: HttpContext) {
    return ConnectionForms.index(ctx)
  }

  /** POST /account/connections/@provider: connect one. */
  connect(ctx: HttpContext) {
    return ConnectionForms.connect(ctx)
  }

  /** POST /account/connections/@provider/disconnect */
  disconnect(ctx: HttpContext) {
    return ConnectionForms.disconnect(ctx)
  }
}
