/**
 * @module session/json-forms
 * The one place a web page or form answers a JSON request (`request.wantsJson()`: `Accept`
 * prefers JSON, or the body is JSON). Forms are written once, the browser way (a redirect, a
 * flashed message, a `ValidationError`, `ctx.view.render`); `SessionMiddleware.after` calls
 * `answerJsonForm` once the handler and the route's own middleware are done, before it saves the
 * session (without what was taken back from it), and this turns the answer into JSON:
 *
 * | The page did | JSON answer |
 * |---|---|
 * | a redirect (any web route) | 200 `{"data": {"redirect": "<Location>", "message"?}}` (201 on a `creates()` route) |
 * | a redirect with flashed field errors | 422 `{"message", "code": "E_VALIDATION", "errors"}` |
 * | a redirect with a flashed `error` message | 409 `{"message", "code": "E_CONFLICT"}` |
 * | a redirect (or `{redirect}`) after `answerJsonError(ctx, status, {message, code})` (a login waits for its second step: 401 `E_MFA_REQUIRED`) | that status and body |
 * | `ctx.view.render(name, data)` on a `form()` route | `{"data": <the view's data>}` (see `view/view-json-data`) |
 * | returned an object on a `form()` route | `{"data": <object>}` (an answer that already has `data` keeps it) |
 *
 * A flashed `success` (or `status`) message becomes `data.message`; what the answer carries
 * (messages, errors, old input) is taken back from the session; anything else flashed stays for
 * the next request (e.g. a summary the next page shows). A page rendered with an error status
 * (an unusable link's 404) answers `{"message", "code"}` with that status. `answerData(ctx,
 * {...})` adds keys to a converted redirect's `data` (e.g. what was created). Errors thrown by
 * the page are the exception handler's (JSON already). Left alone: API routes, routes without a
 * session (no `web` stack), `navigation()` routes (mailed links' GETs, OAuth redirects and
 * callbacks), HTML requests.
 */
import type { HttpContext } from '../http/context.js'
import { statusText } from '../http/status-text.js'
import './context-session.js'

/** `ctx.state` key: the data of the view a form route rendered for a JSON request. */
export const VIEW_DATA = 'jsonForms.viewData'
/** `ctx.state` key: extra `data` keys for a converted redirect (`answerData`). */
const EXTRA_DATA = 'jsonForms.data'
/** The session's flash keys of validation errors and old input (see session/session). */
const ERRORS_FLASH = '_errors'
const OLD_INPUT_FLASH = '_old_input'
/** What a JSON answer carries instead of the next page: taken back from the session. */
const ANSWERED_FLASH = ['success', 'status', 'error', ERRORS_FLASH, OLD_INPUT_FLASH]
/** `ctx.state` key: the error a converted redirect is answered with instead (`answerJsonError`). */
const ERROR_ANSWER = 'jsonForms.error'

/** The code of a page answered with an error status under JSON. */
const STATUS_CODES: Record<number, string> = {
  400: 'E_BAD_REQUEST',
  401: 'E_UNAUTHORIZED',
  403: 'E_FORBIDDEN',
  404: 'E_NOT_FOUND',
  409: 'E_CONFLICT',
  410: 'E_NOT_FOUND',
  422: 'E_VALIDATION',
  429: 'E_TOO_MANY_REQUESTS',
}

/** Whether `ctx` is a JSON request to a web route whose answers are converted. */
export function answersJsonForm(ctx: HttpContext): boolean {
  const route = ctx.route
  if (!route || route.json || route.form === 'navigation' || !ctx.hasSession) return false
  return ctx.request.wantsJson()
}

/** Whether a page's view is answered as its data (`ctx.view.render` calls `viewJsonData`). */
export function answersViewData(ctx: HttpContext): boolean {
  return ctx.route?.form !== undefined && answersJsonForm(ctx)
}

/** Adds `data` to what a converted redirect answers under JSON (a browser still gets the redirect). */
export function answerData(ctx: HttpContext, data: Record<string, unknown>): void {
  ctx.state[EXTRA_DATA] = { ...(ctx.state[EXTRA_DATA] as Record<string, unknown> | undefined), ...data }
}

/**
 * Under JSON, answers the page's redirect (or returned `{redirect}`) with this error instead: a
 * login sent to its second step is 401 `E_MFA_REQUIRED`, not the challenge page's address.
 */
export function answerJsonError(ctx: HttpContext, status: number, body: { message: string; code: string }): void {
  ctx.state[ERROR_ANSWER] = { status, body }
}

function errorAnswer(ctx: HttpContext): { status: number; body: { message: string; code: string } } | undefined {
  return ctx.state[ERROR_ANSWER] as { status: number; body: { message: string; code: string } } | undefined
}

function isRedirect(ctx: HttpContext): boolean {
  const status = ctx.response.statusCode
  return status >= 300 && status < 400 && ctx.response.getHeader('location') !== undefined
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The message a form flashed for the next page, if any. */
function flashedMessage(flashed: Record<string, unknown>): string | undefined {
  for (const key of ['success', 'status']) if (typeof flashed[key] === 'string') return flashed[key] as string
  return undefined
}

/** See the module comment. An answer it cannot read is left as it is. */
export function answerJsonForm(ctx: HttpContext): void {
  if (!answersJsonForm(ctx)) return
  const res = ctx.response
  // The JSON of a page: a cache must not give it to a browser asking for the page.
  if (ctx.request.method === 'GET' || ctx.request.method === 'HEAD') res.vary('Accept')
  const created = ctx.route?.form === 'create'
  if (isRedirect(ctx)) {
    const location = String(res.getHeader('location'))
    const flashed = ctx.session.takeFlashed(ANSWERED_FLASH)
    res.removeHeader('location')
    const errors = flashed[ERRORS_FLASH]
    if (isPlainObject(errors) && Object.keys(errors).length > 0) {
      res.json({ message: 'The given data was invalid.', code: 'E_VALIDATION', errors }, 422)
      return
    }
    if (typeof flashed.error === 'string') {
      res.json({ message: flashed.error, code: 'E_CONFLICT' }, 409)
      return
    }
    const instead = errorAnswer(ctx)
    if (instead) {
      res.json(instead.body, instead.status)
      return
    }
    const message = flashedMessage(flashed)
    const extra = (ctx.state[EXTRA_DATA] as Record<string, unknown> | undefined) ?? {}
    res.json({ data: { ...extra, ...(message !== undefined ? { message } : {}), redirect: location } }, created ? 201 : 200)
    return
  }
  if (ctx.route?.form === undefined) return
  if (Object.hasOwn(ctx.state, VIEW_DATA) && res.statusCode >= 400) {
    // A page that says what went wrong (an unusable link: 404): its message as a JSON error.
    const data = ctx.state[VIEW_DATA] as Record<string, unknown>
    const message = typeof data.message === 'string' ? data.message : statusText(res.statusCode)
    res.json({ message, code: STATUS_CODES[res.statusCode] ?? (res.statusCode >= 500 ? 'E_INTERNAL' : 'E_BAD_REQUEST') }, res.statusCode)
    return
  }
  if (res.statusCode < 200 || res.statusCode >= 300) return
  const status = created && res.statusCode === 200 ? 201 : res.statusCode
  if (Object.hasOwn(ctx.state, VIEW_DATA)) {
    const data = ctx.state[VIEW_DATA] as Record<string, unknown>
    const message = flashedMessage(ctx.session.takeFlashed(ANSWERED_FLASH))
    res.json({ data: message !== undefined && data.message === undefined ? { ...data, message } : data }, status)
    return
  }
  const type = String(res.getHeader('content-type') ?? '')
  if (!type.startsWith('application/json') || typeof res.body !== 'string') return
  let body: unknown
  try {
    body = JSON.parse(res.body)
  } catch {
    return
  }
  const message = flashedMessage(ctx.session.takeFlashed(ANSWERED_FLASH))
  const answer = envelope(body, message)
  const instead = errorAnswer(ctx)
  if (instead && isPlainObject(answer.data) && typeof answer.data.redirect === 'string') res.json(instead.body, instead.status)
  else res.json(answer, status)
}

/** `{"data": ...}` around an answer; one that has `data` keeps it, with its other keys moved in. */
function envelope(body: unknown, message: string | undefined): { data: unknown } {
  let data: unknown = body
  if (isPlainObject(body) && Object.hasOwn(body, 'data')) {
    const { data: inner, ...rest } = body
    if (!isPlainObject(inner)) return body as { data: unknown }
    data = { ...rest, ...inner }
  }
  if (message !== undefined && isPlainObject(data) && data.message === undefined) data = { ...data, message }
  return { data }
}
