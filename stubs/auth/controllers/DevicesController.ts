import type { HttpContext } from 'trowel'
import { DeviceForms } from 'trowel/auth'

export class DevicesController {
  /** GET /account/devices: every login of the user, "This device" marked. */
  index(ctx: HttpContext) {
    return DeviceForms.index(ctx)
  }

  /** POST /account/devices/@id/revoke: logs that device out (this one: logs out, 302 /login). */
  revoke(ctx: HttpContext) {
    return DeviceForms.revoke(ctx)
  }

  /** POST /account/devices/revoke-others (behind password.confirm): logs out every other device. */
  revokeOthers(ctx: HttpContext) {
    return DeviceForms.revokeOthers(ctx)
  }
}
