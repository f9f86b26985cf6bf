/**
 * @module testing/bare-app
 * For the framework's own unit tests: an `Application` with just what `RequestHandler` needs
 * (cookies, the exception handler, the kernel, a silent log) and `routes` mounted and resolved, so
 * a test can run requests through the real handler (`inject`) or a real server (`startServer`)
 * without an app folder.
 */
import { Application } from '../foundation/application.js'
import { HttpKernel } from '../foundation/http-kernel.js'
import { resolveRoute } from '../foundation/route-resolver.js'
import { CookieJar } from '../http/cookie-jar.js'
import { ExceptionHandler } from '../http/exception-handler.js'
import type { RouteEntry } from '../routing/route-group.js'
import { Logger } from '../support/logger.js'

export async function bareApp(routes: RouteEntry[]): Promise<Application> {
  const app = new Application('/nonexistent', { log: new Logger({ sink: () => {} }) })
  app.bind('app.mode', 'http')
  app.bind('cookies', new CookieJar('k'.repeat(40)))
  app.bind('exceptions', new ExceptionHandler(app))
  app.bind('middleware.instances', new Map())
  app.kernel = new HttpKernel(app)
  app.router.mount(routes, {})
  for (const route of app.router.routes) route.runtime = await resolveRoute(app, route)
  return app
}
