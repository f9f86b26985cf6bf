/**
 * @module http/context
 * The one object a controller method and a middleware receive: `{ request, response, params, app }`
 * and whatever the providers add. The HTTP layer imports no session, view or auth module: each
 * owning module adds its property with one typed call, `HttpContext.decorate(name, ...)`, and types
 * it by augmenting this class (`declare module '../http/context.js' { interface HttpContext { ... } }`):
 * `session` and `hasSession` (session/context-session.ts), `view` (view/context-view.ts), `auth`
 * (auth/auth.ts).
 */
import type { Request } from './request.js'
import type { Response } from './response.js'
import type { HttpApplication } from './http-application.js'
import type { JsonFormKind } from '../routing/route-definition.js'
import { FrameworkError } from '../support/framework-error.js'
import { bag } from '../support/bag.js'

/**
 * Per-request flags the framework's own middleware share. Features add theirs by augmenting this
 * interface; anything an app keeps here is its own business.
 */
export interface RequestState {
  /** Set for routes exempt from the CSRF check (the API's token routes). */
  csrfExempt?: boolean
  [key: string]: unknown
}

export interface RouteInfo {
  name?: string
  path: string
  methods: string[]
  /** True for API routes: errors always answer JSON. */
  json: boolean
  /** How a JSON request to this web route is answered (`RouteDefinition.jsonForm`). */
  form?: JsonFormKind
}

/** What `HttpContext.decorate` adds: a getter, and a setter when the property may be assigned. */
export interface ContextProperty<T> {
  get(this: HttpContext): T
  set?(this: HttpContext, value: T): void
}

const decorated = new Set<string>()
/** The class's own instance fields, which a decoration would never be seen behind. */
const OWN_FIELDS = new Set(['request', 'response', 'app', 'params', 'route', 'state', 'receivedAt'])

export class HttpContext {
  readonly request: Request
  readonly response: Response
  readonly app: HttpApplication
  readonly params: Record<string, string>
  route: RouteInfo | null
  /** Per-request storage for middleware. */
  readonly state: RequestState = bag() as RequestState
  /** When the request arrived (epoch ms): e.g. whether it was already under way when a token was replaced. */
  readonly receivedAt: number = Date.now()

  constructor(app: HttpApplication, request: Request, response: Response, route: RouteInfo | null) {
    this.app = app
    this.request = request
    this.response = response
    this.params = request.params
    this.route = route
  }

  /**
   * Adds `name` to every context, once per process (fastify's `decorateRequest`): refused when the
   * name is taken (by the class or an earlier decoration) or when a property it `requires` was not
   * added first. The owner types it by augmenting `HttpContext`.
   */
  static decorate<K extends keyof HttpContext & string>(name: K, property: ContextProperty<HttpContext[K]>, options: { requires?: readonly string[] } = {}): void {
    if (decorated.has(name) || OWN_FIELDS.has(name) || name in HttpContext.prototype) {
      throw new FrameworkError('E_CONTEXT_DECORATION', `ctx.${name} is already defined: a context property is added once, by the module that owns it.`)
    }
    const missing = (options.requires ?? []).filter((required) => !decorated.has(required))
    if (missing.length > 0) {
      throw new FrameworkError('E_CONTEXT_DECORATION', `ctx.${name} needs ctx.${missing.join(', ctx.')}, which is not defined: import the module that adds it first.`)
    }
    Object.defineProperty(HttpContext.prototype, name, { get: property.get, set: property.set, configurable: false, enumerable: false })
    decorated.add(name)
  }

  /** True when `decorate(name)` ran in this process. */
  static isDecorated(name: string): boolean {
    return decorated.has(name)
  }
}
