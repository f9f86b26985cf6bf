/**
 * @module http/request-handler
 * The per-request path: match the route (404/405 before anything else), parse the body (its
 * error, if any, surfaces when something reads it, at the latest before the handler), run
 * global middleware, the route's stacks and the handler, render any error through the one
 * exception handler, run every `after` that ran a `before`, and send.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Application } from '../foundation/application.js'
import type { RouteRuntime, ResolvedMiddleware } from '../routing/handler-resolver.js'
import { resolveMiddleware } from '../routing/handler-resolver.js'
import { HttpContext } from './context.js'
import { Request } from './request.js'
import { Response } from './response.js'
import { readBody, DEFAULT_BODY_LIMIT } from './body-parser.js'
import { MethodNotAllowedError, NotFoundError } from './errors.js'
import { applyResult } from './result.js'
import { send } from './send.js'
import { trustedProxyHops } from './trust-proxy.js'
import type { ExceptionHandler } from './exception-handler.js'
import type { CookieJar } from './cookie-jar.js'

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export class RequestHandler {
  readonly #app: Application
  readonly #exceptions: ExceptionHandler
  readonly #jar: CookieJar
  readonly #global: ResolvedMiddleware[]
  readonly #trustProxy: number
  readonly #bodyLimit: number
  readonly #urlFor: (name: string, params?: Record<string, unknown>) => string

  constructor(app: Application) {
    this.#app = app
    this.#exceptions = app.make('exceptions')
    this.#jar = app.make('cookies')
    this.#global = resolveMiddleware(app, app.kernel.httpMiddleware, 'httpMiddleware')
    this.#trustProxy = trustedProxyHops(process.env.TRUST_PROXY)
    this.#bodyLimit = Number(process.env.BODY_LIMIT) > 0 ? Number(process.env.BODY_LIMIT) : DEFAULT_BODY_LIMIT
    this.#urlFor = (name, params) => app.router.url(name, params)
  }

  /** The node:http request listener. Never throws; never leaves a request unanswered. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    this.handle(req, res).catch((error) => {
      this.#app.log.error('http.unhandled', { error })
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
        res.end(JSON.stringify({ message: 'Internal server error.', code: 'E_INTERNAL' }))
      } else res.destroy()
    })
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = new Request(req, { trustProxy: this.#trustProxy, cookies: this.#jar })
    const response = new Response({
      cookies: this.#jar,
      secure: request.isSecure(),
      urlFor: this.#urlFor,
      referer: request.header('referer'),
    })
    const match = this.#app.router.match(request.method, request.path)
    const route = match.kind === 'found' ? match.route : null
    if (match.kind === 'found') request.params = match.params
    const ctx = new HttpContext(this.#app, request, response, route?.info ?? null)
    if (route?.definition.csrfExempt) ctx.state.csrfExempt = true

    // Empty middleware lists and synchronous results are not awaited: each `await` costs a turn
    // of the microtask queue on every request.
    const ran: ResolvedMiddleware[] = []
    try {
      let stopped = this.#global.length > 0 && (await this.#before(ctx, this.#global, ran))
      if (!stopped) {
        if (match.kind === 'not-found') throw new NotFoundError()
        if (match.kind === 'method-not-allowed') throw new MethodNotAllowedError(match.allowed)
        if (BODY_METHODS.has(request.method)) {
          try {
            request.body = await readBody(req, this.#bodyLimit)
          } catch (error) {
            request.failBody(error)
          }
        }
        const runtime = route!.runtime as RouteRuntime
        stopped = runtime.middleware.length > 0 && (await this.#before(ctx, runtime.middleware, ran))
        if (!stopped) {
          // A body that could not be read never reaches the handler, read or not.
          if (request.bodyError !== undefined) throw request.bodyError
          const result = runtime.handler(ctx)
          applyResult(ctx, isThenable(result) ? await result : result)
        }
      }
    } catch (error) {
      this.#exceptions.render(ctx, error)
    }
    for (let i = ran.length - 1; i >= 0; i--) {
      const m = ran[i]!
      if (!m.instance.after) continue
      try {
        const raw = m.instance.after(ctx, ...m.args)
        const result = isThenable(raw) ? await raw : raw
        if (!passesOn(ctx, result)) applyResult(ctx, result)
      } catch (error) {
        this.#exceptions.render(ctx, error)
      }
    }
    send(res, response, request.method === 'HEAD')
  }

  async #before(ctx: HttpContext, list: ResolvedMiddleware[], ran: ResolvedMiddleware[]): Promise<boolean> {
    for (const m of list) {
      ran.push(m)
      if (!m.instance.before) continue
      const result = await m.instance.before(ctx, ...m.args)
      if (!passesOn(ctx, result)) {
        applyResult(ctx, result)
        return true
      }
    }
    return false
  }
}

/**
 * True when a middleware's return value lets the request go on: nothing, `null`, or the context
 * or request itself (Masonite's `return request`). Anything else (a `response.*` result, a
 * string, an object) is the answer, and stops the chain.
 */
function passesOn(ctx: HttpContext, result: unknown): boolean {
  return result === undefined || result === null || result === ctx || result === ctx.request
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}
