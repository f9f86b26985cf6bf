import type { HttpContext } from 'trowel'

/** PLACEHOLDER until its page is built: answers 501. */
export class EmailVerificationController {
  notice(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }

  resend(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }

  verify(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }
}
