/**
 * @module foundation/http-kernel
 * The base of the app's `Kernel.ts`: global middleware (`httpMiddleware`, every request),
 * named stacks (`routeMiddleware`, e.g. `web`, `auth`, `api`, `guard`) and `registerRoutes()`,
 * which binds where the route files are (`routes.location`, `routes.api.location`).
 *
 * Order on a request: httpMiddleware `before` (in order) → the route's stacks `before` (group
 * stacks such as `web`/`api` first, then the route's own, each stack's classes in order) →
 * the handler → every `after` in reverse.
 */
import type { Application } from './application.js'
import type { MiddlewareClass } from '../http/middleware.js'

export class HttpKernel {
  protected readonly application: Application
  httpMiddleware: MiddlewareClass[] = []
  routeMiddleware: Record<string, MiddlewareClass[]> = {}

  constructor(application: Application) {
    this.application = application
  }

  registerRoutes(): void {
    this.application.bind('routes.location', 'routes/web')
  }
}
