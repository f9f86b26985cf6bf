import type { HttpContext } from 'trowel'

/** PLACEHOLDER until its page is built: answers 501. */
export class SecureAccountController {
  secure(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }
}
