import type { HttpContext } from 'trowel'
import { PasskeyForms } from 'trowel/auth'

export class PasskeyController {
  /** GET /account/passkeys: the user's passkeys, "Add a passkey" and a remove button each. */
  index(ctx: HttpContext) {
    return PasskeyForms.index(ctx)
  }

  /** POST /account/passkeys/@id/delete (behind password.confirm): removes one; 302 back to the list. */
  destroy(ctx: HttpContext) {
    return PasskeyForms.destroy(ctx)
  }

  /** POST /passkeys/register/options (behind password.confirm): the options for creating a passkey (JSON). */
  registerOptions(ctx: HttpContext) {
    return PasskeyForms.registerOptions(ctx)
  }

  /** POST /passkeys/register (behind password.confirm): verifies and stores the new passkey; 201. */
  register(ctx: HttpContext) {
    return PasskeyForms.register(ctx)
  }

  /** POST /passkeys/login/options: the options for signing in with any passkey of this site (JSON). */
  loginOptions(ctx: HttpContext) {
    return PasskeyForms.loginOptions(ctx)
  }

  /** POST /passkeys/login: verifies the passkey and logs its owner in; `{ redirect }`. */
  login(ctx: HttpContext) {
    return PasskeyForms.login(ctx)
  }
}
