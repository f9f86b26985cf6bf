/**
 * @module routing/route-definition
 * One route as declared in a routes file: methods, path, handler, name, middleware.
 */
import type { HttpContext } from '../http/context.js'
import type { MiddlewareClass } from '../http/middleware.js'

export type HandlerFunction = (ctx: HttpContext) => unknown
export type ControllerClass = new (...args: any[]) => any
/** `'Controller@method'`, `'auth/Controller@method'`, `[Class, 'method']` or a function. */
export type RouteHandler = string | HandlerFunction | [ControllerClass, string]
/** A stack name (`'auth'`), a stack with arguments (`'guard:jwt'`) or a middleware class. */
export type MiddlewareReference = string | MiddlewareClass

export class RouteDefinition {
  readonly methods: string[]
  readonly path: string
  readonly handler: RouteHandler
  routeName?: string
  readonly middlewareList: MiddlewareReference[] = []
  readonly excludedMiddleware: string[] = []
  /** Skip CSRF verification (token routes). */
  csrfExempt = false
  /** Errors always answer JSON (API routes). */
  json = false
  /** A provider that must be registered for this route to be served (e.g. `ApiProvider`). */
  requiresProvider?: { name: string; key: string }

  constructor(methods: string[], path: string, handler: RouteHandler) {
    this.methods = methods.map((m) => m.toUpperCase())
    this.path = path
    this.handler = handler
  }

  name(name: string): this {
    this.routeName = name
    return this
  }

  middleware(list: MiddlewareReference | MiddlewareReference[]): this {
    this.middlewareList.push(...(Array.isArray(list) ? list : [list]))
    return this
  }

  /** Leaves out stacks the route would get from its group (e.g. `'web'` for token routes). */
  withoutMiddleware(list: string | string[]): this {
    this.excludedMiddleware.push(...(Array.isArray(list) ? list : [list]))
    return this
  }
}
