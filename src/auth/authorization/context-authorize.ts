/**
 * @module auth/authorization/context-authorize
 * `ctx.authorize(ability, ...args)`: the alias of `ctx.auth.authorize()` (resolves when allowed,
 * else throws 403 `E_FORBIDDEN`), added to every context once `ctx.auth` exists.
 */
import { HttpContext } from '../../http/context.js'
import '../auth.js'

declare module '../../http/context.js' {
  interface HttpContext {
    /** `ctx.auth.authorize()`: resolves when allowed, else throws 403 `E_FORBIDDEN`. */
    authorize(ability: string, ...args: unknown[]): Promise<void>
  }
}

HttpContext.decorate(
  'authorize',
  {
    get(this: HttpContext) {
      return (ability: string, ...args: unknown[]): Promise<void> => this.auth.authorize(ability, ...args)
    },
  },
  { requires: ['auth'] },
)
