import type { HttpContext } from 'trowel'
import { ActivityForms } from 'trowel/auth'

export class ActivityController {
  /** GET /account/activity: the user's last 50 sign-ins, failures and account changes. */
  index(ctx: HttpContext) {
    return ActivityForms.index(ctx)
  }
}
