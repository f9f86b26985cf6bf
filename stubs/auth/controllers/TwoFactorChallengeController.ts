import type { HttpContext } from 'trowel'
import { TwoFactorChallengeForms } from 'trowel/auth'

export class TwoFactorChallengeController {
  /** GET /two-factor-challenge: the second step of a login (a code, a recovery code or a passkey). */
  show(ctx: HttpContext) {
    return TwoFactorChallengeForms.show(ctx)
  }

  /** POST /two-factor-challenge: a right `code` or `recovery_code` finishes the login (or the step-up). */
  store(ctx: HttpContext) {
    return TwoFactorChallengeForms.store(ctx)
  }

  /** POST /account/two-factor/forget-devices: every trusted browser asks for a code again. */
  forgetDevices(ctx: HttpContext) {
    return TwoFactorChallengeForms.forgetDevices(ctx)
  }
}
