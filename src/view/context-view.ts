/**
 * @module view/context-view
 * `ctx.view`: the `ViewFactory` bound to one request. Templates rendered through it also see:
 *
 * | Global | Value |
 * |---|---|
 * | `csrf_field` | the hidden `__token` input, markup-safe: `{{ csrf_field }}` |
 * | `csrf_token` | the session's CSRF token (for `<meta>` tags and `X-CSRF-TOKEN`) |
 * | `route(name, params)` | a named route's URL |
 * | `has_route(name)` | true when a route has that name (`{% if has_route('login') %}`) |
 * | `old(key, fallback = '')` | the input the previous request flashed (never passwords) |
 * | `errors` | field → messages flashed by the previous request (`errors.email[0]`) |
 * | `flash(key, fallback)` | any value the previous request flashed |
 * | `messages` | `{ success, error, status }` flashed values (undefined when not flashed) |
 * | `session` | read-only `{ get, has, flash }` |
 * | `auth_user` | `ctx.auth.user()` when auth is configured, else null |
 * | `request` | `{ path, method, url }` |
 *
 * Precedence, lowest first: factory `share()`, these globals, this view's `share()`, render data.
 */
import { HttpContext } from '../http/context.js'
import '../session/context-session.js'
import type { Session } from '../session/session.js'
import { csrfField } from '../session/csrf-field.js'
import { resolveTemplateName } from './template-name.js'
import { lazyMarkup, markup } from './lazy-markup.js'
import type { ViewFactory } from './view-factory.js'
import { answersViewData, VIEW_DATA } from '../session/json-forms.js'
import { viewJsonData } from './view-json-data.js'

export interface ViewRenderOptions {
  /** What a JSON request gets as `data`: the keys of the view's data to keep, or a function of it. */
  json?: readonly string[] | ((data: Record<string, unknown>) => Record<string, unknown>)
}

export class ContextView {
  readonly factory: ViewFactory
  readonly ctx: HttpContext
  #shared: Record<string, unknown> = {}

  constructor(factory: ViewFactory, ctx: HttpContext) {
    this.factory = factory
    this.ctx = ctx
  }

  /** Values every template rendered for this request sees. */
  share(data: Record<string, unknown>): this {
    Object.assign(this.#shared, data)
    return this
  }

  /**
   * The page `name` with `data`. On a `form()` route asked for JSON (`session/json-forms`) nothing is
   * rendered: the page's data is kept for the JSON answer (`{"data": ...}`) and '' returned.
   * `options.json` chooses that data: the keys to keep, or a function of `data`; by default every
   * key of `data` but functions, markup and the page's furniture (`viewJsonData`).
   */
  render(name: string, data: Record<string, unknown> = {}, options: ViewRenderOptions = {}): string {
    if (answersViewData(this.ctx)) {
      this.ctx.state[VIEW_DATA] = viewJsonData(data, options.json)
      return ''
    }
    return this.factory.renderFile(resolveTemplateName(name), {
      ...this.factory.shared,
      ...this.globals(),
      ...this.#shared,
      ...data,
    })
  }

  /** The per-request globals (see the module comment). */
  globals(): Record<string, unknown> {
    const ctx = this.ctx
    const session: Session | null = ctx.hasSession ? (ctx.session as Session) : null
    const flash = <T>(key: string, fallback?: T): T | undefined => (session ? session.getFlash(key, fallback) : fallback)
    return {
      csrf_field: session ? lazyMarkup(() => csrfField(session)) : markup(''),
      csrf_token: session ? lazyMarkup(() => session.token()) : '',
      old: (key: string, fallback: unknown = '') => (session ? session.old(key, fallback) : fallback),
      errors: session ? session.errors() : {},
      flash,
      messages: { success: flash('success'), error: flash('error'), status: flash('status') },
      session: session
        ? { get: (k: string, f?: unknown) => session.get(k, f), has: (k: string) => session.has(k), flash }
        : null,
      auth_user: authUser(ctx),
      request: { path: ctx.request.path, method: ctx.request.method, url: ctx.request.url },
    }
  }
}

function authUser(ctx: HttpContext): unknown {
  if (!ctx.app.has('http.context.auth')) return null
  try {
    const user = ctx.auth?.user?.()
    return user && typeof (user as { then?: unknown }).then !== 'function' ? user : null
  } catch {
    return null
  }
}

declare module '../http/context.js' {
  interface HttpContext {
    /** The request's views (`ctx.view.render(...)`), built on first use by the `http.context.view` factory (ViewProvider). */
    readonly view: ContextView
  }
}

const VIEW = Symbol('ctx.view')

HttpContext.decorate(
  'view',
  {
    get(this: HttpContext & { [VIEW]?: ContextView }) {
      return (this[VIEW] ??= this.app.make<(ctx: HttpContext) => ContextView>('http.context.view')(this))
    },
  },
  { requires: ['session'] },
)
