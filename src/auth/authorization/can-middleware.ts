/**
 * @module auth/authorization/can-middleware
 * `'can:<ability>'` on a route (`'can:a,b'` needs each one): the request's user must be allowed.
 * A gate defined for the ability decides (called with `ctx.organization ?? null`); otherwise the
 * current membership's role abilities (`*` covers all). Neither, an unknown ability, or a guest
 * (unless the gate accepts guests): 403 `E_FORBIDDEN`. Put `auth` before it to send guests to the
 * login page instead.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { RouteDefinitionError } from '../../routing/errors.js'
import { requestAllows } from './request-gate.js'
import { forbidden } from './errors.js'

const ABILITY = /^[A-Za-z0-9_.:-]{1,64}$/

export class CanMiddleware extends Middleware {
  async before(ctx: HttpContext, ...abilities: string[]): Promise<void> {
    const user = (await ctx.auth.check()) ? ctx.auth.user() : null
    for (const ability of abilities) {
      if (!(await requestAllows(ctx, user, ability, []))) throw forbidden()
    }
  }

  /** `can` needs at least one ability name: checked at startup. */
  override validate(where: string, ...abilities: string[]): void {
    if (abilities.length === 0 || abilities.some((a) => a === '')) {
      throw new RouteDefinitionError(`${where}: name the ability, e.g. "can:posts:publish" (or "can:a,b" for several).`)
    }
    const bad = abilities.find((a) => !ABILITY.test(a))
    if (bad !== undefined) throw new RouteDefinitionError(`${where}: "${bad}" is not an ability name (letters, digits and _ . : -).`)
  }
}
