/**
 * @module cors/cors-middleware
 * `CorsMiddleware`: Cross-Origin Resource Sharing for the origins of `config/cors.ts`.
 *
 * - A preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered here, before the
 *   route runs and so before sessions, CSRF and budgets: 204 with `Access-Control-Allow-Methods`
 *   (the methods the path's routes answer), `Access-Control-Allow-Headers` and
 *   `Access-Control-Max-Age`, when the origin is allowed, the path has a route for the requested
 *   method and every requested header is allowed; otherwise 403 `E_FORBIDDEN`.
 * - Every answer to an allowed origin, error answers included (its `after` runs once the error
 *   was rendered), gets `Access-Control-Allow-Origin: <that origin>`,
 *   `Access-Control-Allow-Credentials: true` when `credentials` is on, and
 *   `Access-Control-Expose-Headers`; every answer gets `Vary: Origin`.
 *
 * `CorsProvider` puts it first in the kernel's `httpMiddleware` when the app has origins, so a
 * preflight never reaches a stack; it works the same in any stack (without preflights, which
 * are answered before route stacks run). With no origins configured it does nothing at all.
 */
import { Middleware } from '../http/middleware.js'
import type { HttpContext } from '../http/context.js'
import type { Response } from '../http/response.js'
import { resolveCorsConfig, type CorsConfig } from './cors-config.js'

/** Request headers a cross-origin caller may send (compared lower case). */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-CSRF-TOKEN', 'X-Organization'] as const
/** Response headers a cross-origin caller may read besides the safelisted ones. */
export const CORS_EXPOSED_HEADERS = ['Retry-After', 'WWW-Authenticate', 'X-CSRF-TOKEN'] as const

const ALLOWED_HEADERS = new Set(CORS_ALLOWED_HEADERS.map((h) => h.toLowerCase()))
const ALLOW_HEADERS_VALUE = CORS_ALLOWED_HEADERS.join(', ')
const EXPOSE_HEADERS_VALUE = CORS_EXPOSED_HEADERS.join(', ')
/** Every method a route can answer, in the order `Access-Control-Allow-Methods` lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

export class CorsMiddleware extends Middleware {
  #config: CorsConfig | null | undefined

  /** `cors.config` as `CorsProvider` bound it (read from the app's config when it did not). */
  get config(): CorsConfig | null {
    if (this.#config === undefined) {
      this.#config = this.app.has('cors.config') ? this.app.make('cors.config') : resolveCorsConfig(this.app)
    }
    return this.#config
  }

  override before(ctx: HttpContext): unknown {
    const config = this.config
    const { request } = ctx
    if (config === null || request.method !== 'OPTIONS') return undefined
    const requested = request.header('access-control-request-method')
    if (requested === undefined) return undefined
    return preflight(ctx, config, requested)
  }

  override after(ctx: HttpContext): undefined {
    const config = this.config
    if (config === null) return undefined
    const { response } = ctx
    addVary(response, 'Origin')
    const origin = allowedOrigin(ctx, config)
    if (origin === null) return undefined
    response.header('Access-Control-Allow-Origin', origin)
    if (config.credentials) response.header('Access-Control-Allow-Credentials', 'true')
    response.header('Access-Control-Expose-Headers', EXPOSE_HEADERS_VALUE)
    return undefined
  }
}

/** The preflight's answer: 204 with what the browser asked to use, or 403. */
function preflight(ctx: HttpContext, config: CorsConfig, requestedMethod: string): Response {
  const { request, response } = ctx
  const methods = METHODS.filter((m) => ctx.app.router.match(m, request.path).kind === 'found')
  const method = requestedMethod.trim().toUpperCase()
  const headers = (request.header('access-control-request-headers') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '')
  const allowed =
    allowedOrigin(ctx, config) !== null &&
    (methods as readonly string[]).includes(method) &&
    headers.every((h) => ALLOWED_HEADERS.has(h))
  if (!allowed) {
    response.status(403).json({ message: 'Cross-origin request refused.', code: 'E_FORBIDDEN' })
    return response
  }
  response.status(204)
  response.body = null
  response.header('Access-Control-Allow-Methods', methods.join(', '))
  response.header('Access-Control-Allow-Headers', ALLOW_HEADERS_VALUE)
  response.header('Access-Control-Max-Age', String(config.max_age))
  return response
}

/** The request's `Origin` when it is one of the configured origins (`null` never is), else null. */
function allowedOrigin(ctx: HttpContext, config: CorsConfig): string | null {
  const origin = ctx.request.header('origin')
  return origin !== undefined && config.origins.has(origin) ? origin : null
}

/** Adds `name` to the response's `Vary` unless it is there already (or `Vary` is `*`). */
function addVary(response: Response, name: string): void {
  const current = response.getHeader('vary')
  const value = Array.isArray(current) ? current.join(', ') : (current ?? '')
  const names = value.split(',').map((v) => v.trim().toLowerCase()).filter((v) => v !== '')
  if (names.includes('*') || names.includes(name.toLowerCase())) return
  response.header('Vary', value.trim() === '' ? name : `${value}, ${name}`)
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    'cors.config': CorsConfig | null
  }
}
