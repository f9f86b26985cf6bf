/**
 * @module api/middleware/ability-middleware
 * `'ability:<name>'` (and `'ability:a,b'`, which needs every one listed) on an API route: the
 * request's Bearer token must carry the ability. A JWT from the token route carries every ability;
 * a personal access token carries those it was created with (`*` = all). Missing one: 403
 * `E_FORBIDDEN` with `WWW-Authenticate: Bearer realm="api", error="insufficient_scope",
 * scope="<the first missing ability>"` (RFC 6750 §3.1). The token itself is verified by the JWT
 * guard (once per request): without the `api` stack, a route with `ability:` still needs one.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { RouteDefinitionError } from '../../routing/errors.js'
import { jwtGuardOf } from '../guards/jwt/jwt-guard-of.js'
import { ABILITY_PATTERN, InsufficientScopeError, firstMissing } from '../personal-tokens/abilities.js'

export class AbilityMiddleware extends Middleware {
  async before(ctx: HttpContext, ...abilities: string[]): Promise<void> {
    await jwtGuardOf(ctx).verifyRequest()
    const missing = firstMissing(ctx.state.abilities ?? [], abilities)
    if (missing !== null) throw new InsufficientScopeError(missing)
  }

  /** `ability` needs at least one name, each a valid ability name: checked at startup. */
  override validate(where: string, ...abilities: string[]): void {
    if (abilities.length === 0 || abilities.some((a) => a === '')) {
      throw new RouteDefinitionError(`${where}: name the ability, e.g. "ability:posts:write" (or "ability:a,b" for several).`)
    }
    const bad = abilities.find((a) => !ABILITY_PATTERN.test(a))
    if (bad !== undefined) throw new RouteDefinitionError(`${where}: "${bad}" is not an ability name (letters, digits and _ . : -).`)
  }
}
