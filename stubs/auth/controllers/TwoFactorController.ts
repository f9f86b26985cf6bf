import type { HttpContext } from 'trowel'
import { TwoFactorForms } from 'trowel/auth'

export class TwoFactorController {
  /** GET /account/two-factor: set up TOTP (QR code, secret, first code), or its status and the manage forms. */
  show(ctx: HttpContext) {
    return TwoFactorForms.show(ctx)
  }

  /** POST /account/two-factor (`code`): turns TOTP on and shows the recovery codes once. */
  enable(ctx: HttpContext) {
    return TwoFactorForms.enable(ctx)
  }

  /** POST /account/two-factor/recovery-codes: replaces the recovery codes, shows the new ones once. */
  regenerate(ctx: HttpContext) {
    return TwoFactorForms.regenerate(ctx)
  }

  /** POST /account/two-factor/disable: turns TOTP off (secret, recovery codes, trusted devices). */
  disable(ctx: HttpContext) {
    return TwoFactorForms.disable(ctx)
  }
}
