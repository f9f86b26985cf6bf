/**
 * @module http/request-handler
 * The per-request path: build the context and match the route (`createContext`), run global
 * middleware, answer 404/405 for an unmatched request, parse the body (its error, if any,
 * surfaces when something reads it, at the latest before the handler), run the route's stacks
 * and the handler, render any error through the one exception handler, run every `after` that
 * ran a `before`, and send; then the response hooks (`http.response.hooks`, e.g. metrics), if any.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { HttpApplication } from './http-application.js'
import type { RouteRuntime, ResolvedMiddleware } from '../routing/handler-resolver.js'
import { resolveMiddleware } from '../routing/handler-resolver.js'
import type { HttpContext } from './context.js'
import { createContext, type ContextOptions, type RequestContext } from './create-context.js'
import { readBody, DEFAULT_BODY_LIMIT } from './body-parser.js'
import { MethodNotAllowedError, NotFoundError } from './errors.js'
import { applyResult } from './result.js'
import { send } from './send.js'
import { trustedProxyHops } from './trust-proxy.js'
import type { ExceptionHandler } from './exception-handler.js'

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Called once per request after the response was sent, with the context and the request's start
 * (`process.hrtime.bigint()`). Bound as a list at `http.response.hooks` before the server starts;
 * with no hooks the request path reads no clock and allocates nothing for them.
 */
export type ResponseHook = (ctx: HttpContext, startedAtNs: bigint) => void

export class RequestHandler {
  readonly #app: HttpApplication
  readonly #exceptions: ExceptionHandler
  readonly #global: ResolvedMiddleware[]
  readonly #bodyLimit: number
  readonly #contextOptions: ContextOptions
  /** `http.response.hooks`, or null when there are none. */
  readonly #onResponse: ResponseHook[] | null

  constructor(app: HttpApplication) {
    this.#app = app
    this.#exceptions = app.make('exceptions')
    this.#global = resolveMiddleware(app, app.kernel.httpMiddleware, 'httpMiddleware')
    this.#bodyLimit = Number(process.env.BODY_LIMIT) > 0 ? Number(process.env.BODY_LIMIT) : DEFAULT_BODY_LIMIT
    this.#contextOptions = {
      trustProxy: trustedProxyHops(process.env.TRUST_PROXY),
      cookies: app.make('cookies'),
      urlFor: (name, params) => app.router.url(name, params),
    }
    const hooks = app.get<ResponseHook[]>('http.response.hooks')
    this.#onResponse = hooks && hooks.length > 0 ? [...hooks] : null
  }

  /** The context this handler gives `req` (TestClient builds its contexts here too). */
  createContext(req: IncomingMessage): RequestContext {
    return createContext(this.#app, req, this.#contextOptions)
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
    const startedAt = this.#onResponse === null ? 0n : process.hrtime.bigint()
    const { ctx, match } = this.createContext(req)
    const { request, response } = ctx

    // Empty middleware lists and synchronous results are not awaited: each `await` costs a turn
    // of the microtask queue on every request.
    const ran: ResolvedMiddleware[] = []
    try {
      let stopped = false
      if (this.#global.length > 0) {
        const before = this.#before(ctx, this.#global, ran, 0)
        stopped = before === true || before === false ? before : await before
      }
      if (!stopped) {
        if (match.kind === 'not-found') throw new NotFoundError()
        if (match.kind === 'method-not-allowed') throw new MethodNotAllowedError(match.allowed)
        if (BODY_METHODS.has(request.method)) {
          try {
            const own = match.route.definition.maxBodyBytes
            request.body = await readBody(req, own !== undefined && own < this.#bodyLimit ? own : this.#bodyLimit)
          } catch (error) {
            request.failBody(error)
          }
        }
        const runtime = match.route.runtime as RouteRuntime
        if (runtime.middleware.length > 0) {
          const before = this.#before(ctx, runtime.middleware, ran, 0)
          stopped = before === true || before === false ? before : await before
        }
        if (!stopped) {
          // A body that could not be read never reaches the handler, read or not.
          if (request.bodyError !== undefined) throw request.bodyError
          const result = runtime.handler(ctx)
          applyResult(ctx, isThenable(result) ? await result : result)
        }
      }
    } catch (error) {
      // A promise only for the debug page (APP_DEBUG=true, a 500 E_INTERNAL on an HTML request).
      const rendering = this.#exceptions.render(ctx, error)
      if (rendering) await rendering
    }
    for (let i = ran.length - 1; i >= 0; i--) {
      const m = ran[i]!
      if (!m.instance.after) continue
      try {
        const raw = m.instance.after(ctx, ...m.args)
        const result = isThenable(raw) ? await raw : raw
        if (!passesOn(ctx, result)) applyResult(ctx, result)
      } catch (error) {
        const rendering = this.#exceptions.render(ctx, error)
        if (rendering) await rendering
      }
    }
    send(res, response, request.method === 'HEAD')
    if (this.#onResponse !== null) this.#notify(ctx, startedAt)
  }

  /** Runs the response hooks; one that throws is logged, never felt by the request. */
  #notify(ctx: HttpContext, startedAt: bigint): void {
    for (const hook of this.#onResponse!) {
      try {
        hook(ctx, startedAt)
      } catch (error) {
        this.#app.log.error('http.response_hook_failed', { error })
      }
    }
  }

  /**
   * Runs the `before`s of `list` from `from` on; true when one answered. Synchronous for as long
   * as the middleware are: a promise only from the first `before` that returns one.
   */
  #before(ctx: HttpContext, list: ResolvedMiddleware[], ran: ResolvedMiddleware[], from: number): boolean | Promise<boolean> {
    for (let i = from; i < list.length; i++) {
      const m = list[i]!
      ran.push(m)
      if (!m.instance.before) continue
      const result = m.instance.before(ctx, ...m.args)
      if (isThenable(result)) return this.#beforeAfterPromise(ctx, list, ran, i, result)
      if (!passesOn(ctx, result)) {
        applyResult(ctx, result)
        return true
      }
    }
    return false
  }

  async #beforeAfterPromise(ctx: HttpContext, list: ResolvedMiddleware[], ran: ResolvedMiddleware[], i: number, pending: PromiseLike<unknown>): Promise<boolean> {
    const result = await pending
    if (!passesOn(ctx, result)) {
      applyResult(ctx, result)
      return true
    }
    return this.#before(ctx, list, ran, i + 1)
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
