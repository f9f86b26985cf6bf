import type { HttpContext } from 'trowel'

/** PLACEHOLDER until its page is built: answers 501. */
export class DevicesController {
  index(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }

  revoke(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }

  revokeOthers(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }
}
