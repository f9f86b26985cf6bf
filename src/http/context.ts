/**
 * @module http/context
 * The one object a controller method and a middleware receive:
 * `{ request, response, auth, view, session, params, app }`.
 * `auth` and `view` are built on first use by the factories their providers bind
 * (`'http.context.auth'`, `'http.context.view'`); `session` is set by the session middleware.
 */
import type { Request } from './request.js'
import type { Response } from './response.js'
import type { Application } from '../foundation/application.js'
import type { Auth } from '../auth/auth.js'
import type { ContextView } from '../view/context-view.js'
import type { Session } from '../session/session.js'
import type { JsonFormKind } from '../routing/route-definition.js'
import { FrameworkError } from '../foundation/framework-error.js'

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

export class HttpContext {
  readonly request: Request
  readonly response: Response
  readonly app: Application
  readonly params: Record<string, string>
  route: RouteInfo | null
  #auth: Auth | undefined
  #view: ContextView | undefined
  #session: Session | undefined
  /** Per-request storage for middleware. */
  readonly state: RequestState = Object.create(null)
  /** When the request arrived (epoch ms): e.g. whether it was already under way when a token was replaced. */
  readonly receivedAt: number = Date.now()

  constructor(app: Application, request: Request, response: Response, route: RouteInfo | null) {
    this.app = app
    this.request = request
    this.response = response
    this.params = request.params
    this.route = route
  }

  /** The per-request `Auth` (guard choice never leaks between requests). */
  get auth(): Auth {
    if (this.#auth === undefined) {
      if (!this.app.has('http.context.auth')) {
        throw new FrameworkError('E_AUTH_NOT_CONFIGURED', 'ctx.auth is not available: config/auth.ts is missing or AuthProvider is not registered.')
      }
      this.#auth = this.app.make<(ctx: HttpContext) => Auth>('http.context.auth')(this)
    }
    return this.#auth
  }

  set auth(value: Auth) {
    this.#auth = value
  }

  get view(): ContextView {
    if (this.#view === undefined) {
      this.#view = this.app.make<(ctx: HttpContext) => ContextView>('http.context.view')(this)
    }
    return this.#view
  }

  /**
   * The session (routes in the `web` stack). Elsewhere a stand-in whose every use throws
   * `E_NO_SESSION`, so that a handler may still destructure `{ request, session }`.
   */
  get session(): Session {
    if (this.#session === undefined) return missingSession(this.request.method, this.request.path) as Session
    return this.#session
  }

  set session(value: Session) {
    this.#session = value
  }

  get hasSession(): boolean {
    return this.#session !== undefined
  }
}

function missingSession(method: string, path: string): object {
  const fail = (): never => {
    throw new FrameworkError('E_NO_SESSION', `No session on ${method} ${path}: sessions exist only on routes in the "web" middleware stack.`)
  }
  return new Proxy(Object.create(null), {
    // `then` and symbols are probed by await and inspection: not a use of the session.
    get: (_target, key) => (key === 'then' || typeof key === 'symbol' ? undefined : fail()),
    set: fail,
    has: fail,
  })
}
