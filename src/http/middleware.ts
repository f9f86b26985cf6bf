/**
 * @module http/middleware
 * Middleware classes have `before(ctx, ...args)` and `after(ctx, ...args)`. Returning a response
 * (or any value a handler could return) from `before` stops the chain and sends it; returning
 * nothing, `null`, `ctx` or `ctx.request` (Masonite's `return request`) lets the request go on.
 * Arguments come from the route: `'guard:jwt'` calls the `guard` stack with `'jwt'`.
 */
import type { HttpContext } from './context.js'
import type { HttpApplication } from './http-application.js'

export abstract class Middleware {
  protected readonly app: HttpApplication
  constructor(app: HttpApplication) {
    this.app = app
  }
  before?(ctx: HttpContext, ...args: string[]): unknown
  after?(ctx: HttpContext, ...args: string[]): unknown
  /**
   * Checks a route's arguments once, at startup (`where` names the route and the reference);
   * throws to stop the boot with a message, e.g. for an unknown guard in `guard:<name>`.
   */
  validate?(where: string, ...args: string[]): void
}

export type MiddlewareClass = new (app: HttpApplication) => Middleware
