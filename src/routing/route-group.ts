/**
 * @module routing/route-group
 * `Route.group(routes, { prefix, middleware, name })`: options applied to every route inside.
 */
import type { MiddlewareReference, RouteDefinition } from './route-definition.js'

export interface RouteGroupOptions {
  prefix?: string
  middleware?: MiddlewareReference[]
  /** Prepended to the names of the routes inside (`'admin.'`). */
  name?: string
}

export type RouteEntry = RouteDefinition | RouteGroup | RouteEntry[]

export class RouteGroup {
  readonly routes: RouteEntry[]
  readonly options: RouteGroupOptions

  constructor(routes: RouteEntry[], options: RouteGroupOptions = {}) {
    this.routes = routes
    this.options = options
  }

  middleware(list: MiddlewareReference | MiddlewareReference[]): this {
    this.options.middleware = [...(this.options.middleware ?? []), ...(Array.isArray(list) ? list : [list])]
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
