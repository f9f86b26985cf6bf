import type { HttpContext } from 'trowel'

/** PLACEHOLDER until its page is built: answers 501. */
export class AccountController {
  show(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }

  updateProfile(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }

  changeEmail(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }

  changePassword(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }

  destroy(ctx: HttpContext) {
    ctx.response.status(501)
    return 'Not built yet.'
  }
}
