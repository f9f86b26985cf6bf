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
/** See `RouteDefinition.jsonForm`. */
export type JsonFormKind = 'form' | 'create' | 'navigation'

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
  /**
   * How the route answers a JSON request (`session/json-forms`): `'form'` (a page or form of the
   * auth flows: its view's data and what it returns are answered as `{"data": ...}`), `'create'`
   * (the same, 201), `'navigation'` (a browser navigation, e.g. a mailed link's GET: never
   * converted). Unset: only a redirect is converted.
   */
  jsonForm?: JsonFormKind
  /** A provider that must be registered for this route to be served (e.g. `ApiProvider`). */
  requiresProvider?: { name: string; key: string }
  /** The largest body this route reads, in bytes (see `bodyLimit`); unset: the app's limit. */
  maxBodyBytes?: number

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

  /** A page or form that answers JSON requests with its data (`{"data": ...}`); see `jsonForm`. */
  form(kind: JsonFormKind = 'form'): this {
    this.jsonForm = kind
    return this
  }

  /** A form that creates something: its JSON answer is 201. */
  creates(): this {
    return this.form('create')
  }

  /** A browser navigation (a mailed link's GET, an OAuth redirect or callback): never answered as JSON. */
  navigation(): this {
    return this.form('navigation')
  }

  /**
   * A body limit of the route's own, below the app's (1 MiB, `BODY_LIMIT`): a larger body is 413
   * `E_PAYLOAD_TOO_LARGE`, refused before it is read when its declared length is over. The
   * routes that take a password or a code use `CREDENTIAL_BODY_LIMIT`.
   */
  bodyLimit(bytes: number): this {
    if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new RangeError(`bodyLimit(${bytes}): a positive whole number of bytes is expected.`)
    this.maxBodyBytes = bytes
    return this
  }

  /** Leaves out stacks the route would get from its group (e.g. `'web'` for token routes). */
  withoutMiddleware(list: string | string[]): this {
    this.excludedMiddleware.push(...(Array.isArray(list) ? list : [list]))
    return this
  }
}
