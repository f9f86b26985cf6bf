/**
 * @module auth/middleware/initialize-auth-middleware
 * In the `web` stack: loads the logged-in user from the login cookie once per request, so
 * `ctx.auth.user()` (and `auth_user` in templates) is known on every web page.
 */
import { Middleware } from '../../http/middleware.js'
import type { HttpContext } from '../../http/context.js'
import { BaseGuard } from '../guards/base-guard.js'
import { WebGuard } from '../guards/web/guard.js'

export class InitializeAuthMiddleware extends Middleware {
  before(ctx: HttpContext): Promise<void> | undefined {
    // A visitor without a login or "remember me" cookie is nobody: answered without a promise,
    // a query or an error object (the most common request of a public page).
    const guard = ctx.auth.resolve()
    if (guard instanceof WebGuard && !guard.hasCredentials()) return undefined
    // A login found at once (the joined read on SQLite) costs no promise either.
    const checked = guard instanceof BaseGuard ? guard.checkNow() : guard.check()
    return typeof checked === 'boolean' ? undefined : checked.then(() => undefined)
  }
}
