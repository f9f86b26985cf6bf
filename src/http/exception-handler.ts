/**
 * @module http/exception-handler
 * The one place errors become responses.
 * - `HttpError`: its status, code and headers. JSON `{ message, code, ...details }` for API
 *   routes, paths under an API prefix, requests that accept JSON and requests that sent JSON;
 *   an HTML page otherwise.
 * - `ValidationError` on a web form (not JSON) that a `formErrors` keeper takes (the session
 *   provider's flashes the errors and the input, never passwords): 302 back.
 * - Anything else: logged with its stack, answered 500 `E_INTERNAL` with no detail unless
 *   `APP_DEBUG=true`. Lost database connections answer 503 `E_UNAVAILABLE`.
 * - With `APP_DEBUG=true`, an unexpected error (500 `E_INTERNAL`): JSON gets `stack`; an HTML request gets the debug page
 *   (`./debug-page.ts`: message, source, stack, request with secrets masked). `render` then
 *   returns a promise, which the caller awaits before sending. Other HttpErrors (404, 422, 503...)
 *   never change.
 */
import type { HttpApplication } from './http-application.js'
import type { HttpContext } from './context.js'
import { HttpError } from './http-error.js'
import { InternalError, ValidationError } from './errors.js'
import { debugRequestDetails, renderDebugPage, type DebugDetail } from './debug-page.js'
import { statusText } from './status-text.js'

export type ErrorTranslator = (error: unknown) => unknown
export type ErrorPageRenderer = (page: { status: number; message: string; code: string; stack?: string }) => string
/** Keeps a failed web form's errors for the page it goes back to; false when it cannot (no session on the route). */
export type FormErrorKeeper = (ctx: HttpContext, error: ValidationError) => boolean

export class ExceptionHandler {
  readonly #app: HttpApplication
  /** Maps driver errors (e.g. a lost database connection) to HttpErrors; set by providers. */
  translators: ErrorTranslator[] = []
  renderPage: ErrorPageRenderer = defaultErrorPage
  /** Who keeps a failed web form's errors and input (the session provider); none: the error page. */
  formErrors: FormErrorKeeper[] = []
  /** What providers add to the debug page's request (the session's keys, ...): a title and a line, secrets left out. */
  debugDetails: DebugDetail[] = []

  constructor(app: HttpApplication) {
    this.#app = app
  }

  toHttpError(error: unknown): HttpError {
    let e = error
    for (const translate of this.translators) e = translate(e)
    return e instanceof HttpError ? e : new InternalError(undefined, { cause: error })
  }

  report(ctx: HttpContext | null, error: unknown, httpError: HttpError): void {
    if (httpError.status < 500) return
    this.#app.log.error('http.error', {
      method: ctx?.request.method,
      // The route's pattern, not the path: `/change_password/@token` must not write a live reset
      // token (or any other secret in a path parameter) to the log.
      path: ctx?.route?.path ?? ctx?.request.path,
      status: httpError.status,
      code: httpError.code,
      error: error instanceof Error ? error : String(error),
    })
  }

  wantsJson(ctx: HttpContext): boolean {
    return Boolean(ctx.route?.json) || this.#app.router.isJsonPath(ctx.request.path) || ctx.request.wantsJson() || ctx.request.isJson()
  }

  /** Sets the error's response on `ctx`; a promise (to await before sending) only for the debug page. */
  render(ctx: HttpContext, error: unknown): void | Promise<void> {
    const httpError = this.toHttpError(error)
    this.report(ctx, error, httpError)
    const res = ctx.response
    res.body = null
    res.headers.clear()
    res.cookies.clear()
    const json = this.wantsJson(ctx)

    if (httpError instanceof ValidationError && !json && this.formErrors.some((keep) => keep(ctx, httpError))) {
      // Without a Referer: the form's own path when it answers GET (GET /register, POST /register),
      // else the home page; going back to a POST-only path would end on a 405.
      const path = ctx.request.path
      res.back(httpError.back ?? (this.#app.router.match('GET', path).kind === 'found' ? path : '/'))
      return
    }

    res.status(httpError.status)
    for (const [k, v] of Object.entries(httpError.headers)) res.header(k, v)
    const debug = this.#app.isDebug
    const message = httpError.status >= 500 && !debug ? publicMessage(httpError) : httpError.message
    const cause = (httpError as { cause?: unknown }).cause ?? error
    // Only unexpected failures (500 E_INTERNAL: anything that is not an HttpError) get a trace in
    // debug mode: a 404's or a 422's stack says nothing useful, and a 503 (a lost database
    // connection) says what happened through its code; its cause is in the log.
    const unexpected = debug && httpError instanceof InternalError
    const stack = unexpected && cause instanceof Error ? cause.stack : undefined
    if (json) {
      const body: Record<string, unknown> = { message, code: httpError.code }
      if (httpError.details && httpError.status < 500) Object.assign(body, httpError.details)
      if (stack) body.stack = stack
      res.json(body)
    } else {
      let page: string
      try {
        page = this.renderPage({ status: httpError.status, message, code: httpError.code, stack })
      } catch {
        page = defaultErrorPage({ status: httpError.status, message, code: httpError.code })
      }
      res.html(page)
      // The page above stays the answer when the debug page cannot be rendered.
      if (unexpected) return this.#debugPage(ctx, error instanceof Error ? error : cause, httpError)
    }
  }

  async #debugPage(ctx: HttpContext, error: unknown, httpError: HttpError): Promise<void> {
    try {
      const page = await renderDebugPage(error, {
        status: httpError.status,
        title: statusText(httpError.status),
        code: httpError.code,
        request: debugRequestDetails(ctx, this.debugDetails),
      })
      ctx.response.html(page)
    } catch (failure) {
      this.#app.log.error('http.debug_page_failed', { error: failure instanceof Error ? failure : String(failure) })
    }
  }
}

function publicMessage(error: HttpError): string {
  if (error.code === 'E_INTERNAL') return 'Internal server error.'
  return error.message
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

export function defaultErrorPage(page: { status: number; message: string; code: string; stack?: string }): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${page.status} ${escapeHtml(page.message)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.5rem}code{color:#666}pre{overflow:auto;background:#f6f6f6;padding:1rem}</style></head>
<body><main><h1>${page.status} — ${escapeHtml(page.message)}</h1><p><code>${escapeHtml(page.code)}</code></p>${page.stack ? `<pre>${escapeHtml(page.stack)}</pre>` : ''}</main></body></html>`
}
