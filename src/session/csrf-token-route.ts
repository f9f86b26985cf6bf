/**
 * @module session/csrf-token-route
 * `GET /csrf-token`: `{"token": "..."}`, the session's CSRF token (made now when the session has
 * none), for scripts on the same site that post with the `X-CSRF-TOKEN` header instead of a form's
 * `__token` field. It runs in the `web` stack, so it starts the session and sets its cookie; an app
 * whose `web` stack has no `SessionMiddleware` gets its session started and saved here. Answers
 * `Cache-Control: no-store`.
 *
 * `SessionProvider` mounts it once the app's routes are resolved, unless the app has its own
 * `GET /csrf-token`.
 */
import { Route } from '../routing/route.js'
import type { RouteDefinition } from '../routing/route-definition.js'
import type { HttpContext } from '../http/context.js'
import { saveSession, startSession } from './session-middleware.js'

export const CSRF_TOKEN_PATH = '/csrf-token'

export function csrfTokenRoute(): RouteDefinition {
  const route = Route.get(CSRF_TOKEN_PATH, async function csrfToken(ctx: HttpContext) {
    ctx.response.header('Cache-Control', 'no-store')
    if (ctx.hasSession) return { token: ctx.session.token() }
    const session = await startSession(ctx.app, ctx)
    const token = session.token()
    await saveSession(ctx)
    return { token }
  })
  route.json = true
  return route
}
