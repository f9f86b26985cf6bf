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
import { FrameworkError } from '../foundation/framework-error.js'

export interface RouteInfo {
  name?: string
  path: string
  methods: string[]
  /** True for API routes: errors always answer JSON. */
  json: boolean
}

export class HttpContext {
  readonly request: Request
  readonly response: Response
  readonly app: Application
  readonly params: Record<string, string>
  route: RouteInfo | null
  #auth: any
  #view: any
  #session: any
  /** Free-form per-request storage for middleware (e.g. the verified JWT payload). */
  readonly state: Record<string, unknown> = Object.create(null)

  constructor(app: Application, request: Request, response: Response, route: RouteInfo | null) {
    this.app = app
    this.request = request
    this.response = response
    this.params = request.params
    this.route = route
  }

  /** The per-request `Auth` (guard choice never leaks between requests). */
  get auth(): any {
    if (this.#auth === undefined) {
      if (!this.app.has('http.context.auth')) {
        throw new FrameworkError('E_AUTH_NOT_CONFIGURED', 'ctx.auth is not available: config/auth.ts is missing or AuthProvider is not registered.')
      }
      this.#auth = this.app.make<(ctx: HttpContext) => unknown>('http.context.auth')(this)
    }
    return this.#auth
  }

  set auth(value: any) {
    this.#auth = value
  }

  get view(): any {
    if (this.#view === undefined) {
      this.#view = this.app.make<(ctx: HttpContext) => unknown>('http.context.view')(this)
    }
    return this.#view
  }

  /**
   * The session (routes in the `web` stack). Elsewhere a stand-in whose every use throws
   * `E_NO_SESSION`, so that a handler may still destructure `{ request, session }`.
   */
  get session(): any {
    if (this.#session === undefined) return missingSession(this.request.method, this.request.path)
    return this.#session
  }

  set session(value: any) {
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
