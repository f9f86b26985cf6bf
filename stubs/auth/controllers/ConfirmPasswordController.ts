import type { HttpContext } from 'trowel'

/** PLACEHOLDER until its page is built: answers 501. */
export class ConfirmPasswordController {
  show(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }

  store(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }
}
