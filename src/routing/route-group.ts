/**
 * @module routing/route-group
 * `Route.group(routes, { prefix, middleware, name })`: options applied to every route inside;
 * `Route.deferred(build)`: entries built when they are mounted, for the router's application.
 */
import type { MiddlewareReference, RouteDefinition } from './route-definition.js'

export interface RouteGroupOptions {
  prefix?: string
  /** One reference (`'auth'`) or a list. */
  middleware?: MiddlewareReference | MiddlewareReference[]
  /** Prepended to the names of the routes inside (`'admin.'`). */
  name?: string
}

export type RouteEntry = RouteDefinition | RouteGroup | DeferredRoutes | RouteEntry[]

export class RouteGroup {
  readonly routes: RouteEntry[]
  readonly options: RouteGroupOptions & { middleware?: MiddlewareReference[] }

  constructor(routes: RouteEntry[], options: RouteGroupOptions = {}) {
    this.routes = routes
    this.options = { ...options, middleware: asList(options.middleware) }
  }

  middleware(list: MiddlewareReference | MiddlewareReference[]): this {
    this.options.middleware = [...(this.options.middleware ?? []), ...asList(list)]
    return this
  }

  prefix(prefix: string): this {
    this.options.prefix = prefix
    return this
  }

  name(name: string): this {
    this.options.name = name
    return this
  }
}

/**
 * Entries that depend on the application mounting them (`Auth.routes()`: the features that app
 * turned on): the router calls `build` with its owner, the application being booted, when the
 * entry is mounted, so a routes file needs no application at hand and no process-wide state.
 */
export class DeferredRoutes {
  constructor(readonly build: (owner: unknown) => RouteEntry[]) {}
}

function asList(list: MiddlewareReference | MiddlewareReference[] | undefined): MiddlewareReference[] {
  return list === undefined ? [] : Array.isArray(list) ? list : [list]
}
