/**
 * @module view/view-factory
 * `ViewFactory`: renders Nunjucks templates (the Jinja2 dialect) from the app's `templates/`,
 * falling back to the framework's own `templates/`. Output is autoescaped. Each template is compiled
 * once; when APP_DEBUG is on, a render first checks the files the cached templates came from (and
 * the app's files that would override them) and compiles again after any change, so an edit shows
 * at the next request without recompiling every page on every request. `forContext(ctx)` adds the per-request globals
 * (`csrf_field`, `old()`, `errors`, `messages`, `auth_user`, ...); see `ContextView`.
 *
 * `ViewProvider` wires it: `app.singleton('view', () => new ViewFactory(app))` and
 * `app.bind('http.context.view', (ctx) => app.make('view').forContext(ctx))`.
 */
import { existsSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type nunjucks from 'nunjucks'
import type { Application } from '../foundation/application.js'
import type { HttpContext } from '../http/context.js'
import { FrameworkError } from '../foundation/framework-error.js'
import { HttpError } from '../http/http-error.js'
import { InternalError } from '../http/errors.js'
import { FRAMEWORK_TEMPLATES_DIR } from './framework-templates.js'
import { resolveTemplateName } from './template-name.js'
import { locateTemplateError, TemplateRenderError } from './template-error.js'
import { ContextView } from './context-view.js'
import { errorPageContext, renderErrorPage, type ErrorPageData } from './error-page.js'
import { loadNunjucks } from './load-nunjucks.js'
import { humanizeMinutes } from '../support/duration.js'

export type UrlFor = (name: string, params?: Record<string, unknown>) => string

export interface ViewFactoryOptions {
  /** Template folders searched in order; default `[app.path('templates'), <framework>/templates]`. */
  paths?: string[]
  /** Detailed template errors, and templates compiled again when their files change; default `app.isDebug`. */
  debug?: boolean
}

type ViewApp = Pick<Application, 'path' | 'isDebug' | 'has' | 'make'> & Partial<Pick<Application, 'basePath' | 'config'>>

export class ViewFactory {
  readonly paths: string[]
  readonly debug: boolean
  readonly #app: ViewApp
  #shared: Record<string, unknown> = {}
  #env: nunjucks.Environment | undefined
  /** Debug mode: every file a cached template was looked up at, with what was there (`fileMark`). */
  readonly #looked = new Map<string, string>()

  constructor(app: ViewApp, options: ViewFactoryOptions = {}) {
    this.#app = app
    this.debug = options.debug ?? app.isDebug
    this.paths = options.paths ?? [app.path('templates'), FRAMEWORK_TEMPLATES_DIR]
  }

  /**
   * The Nunjucks environment, made (and Nunjucks loaded) by the first render: a process that only
   * answers JSON never loads the template engine.
   */
  get env(): nunjucks.Environment {
    return (this.#env ??= this.#createEnv())
  }

  #createEnv(): nunjucks.Environment {
    const { Environment, FileSystemLoader } = loadNunjucks()
    const loader = new FileSystemLoader(this.paths, { noCache: false, watch: false })
    if (this.debug) {
      // Notes what each search path holds for the name before the loader reads the file it finds,
      // so a change made after the read is seen at the next render.
      const getSource = loader.getSource.bind(loader)
      loader.getSource = (name: string) => {
        for (const dir of this.paths) {
          const path = resolve(dir, name)
          if (!path.startsWith(resolve(dir))) continue
          const mark = fileMark(path)
          this.#looked.set(path, mark)
          if (mark !== MISSING) break
        }
        return getSource(name)
      }
    }
    const env = new Environment(loader, { autoescape: true, throwOnUndefined: false })
    env.addGlobal('route', (name: string, params?: Record<string, unknown>) => this.urlFor(name, params))
    env.addGlobal('has_route', (name: string) => this.#app.has('url.has') && this.#app.make<(name: string) => boolean>('url.has')(name))
    // Request-less defaults (mail templates, error pages): forContext() supplies the real values.
    env.addGlobal('csrf_field', '')
    env.addGlobal('csrf_token', '')
    env.addGlobal('old', (_key: string, fallback: unknown = '') => fallback)
    env.addGlobal('flash', (_key: string, fallback?: unknown) => fallback)
    env.addGlobal('errors', {})
    env.addGlobal('messages', {})
    env.addGlobal('auth_user', null)
    // `{{ minutes | duration }}`: "24 hours", not "1440 minutes".
    env.addFilter('duration', humanizeMinutes)
    // `APPLICATION.name` of config/application.ts (APP_NAME), shown by the auth pages' header and title.
    const name = this.#app.config?.<{ APPLICATION?: { name?: unknown } }>('application')?.APPLICATION?.name ?? process.env.APP_NAME
    env.addGlobal('app_name', typeof name === 'string' && name !== '' ? name : 'Trowel')
    return env
  }

  /** A named route's URL, through the router's `url.for` binding. */
  urlFor(name: string, params?: Record<string, unknown>): string {
    if (!this.#app.has('url.for')) {
      throw new FrameworkError('E_NO_ROUTER', `route("${name}") is not available: no router is bound as "url.for".`)
    }
    return this.#app.make<UrlFor>('url.for')(name, params)
  }

  /** Values every template sees (lower precedence than per-render data). */
  share(data: Record<string, unknown>): this {
    Object.assign(this.#shared, data)
    return this
  }

  get shared(): Readonly<Record<string, unknown>> {
    return this.#shared
  }

  /** Renders `auth/login`, `auth/login.html` or `auth.login` with `data`. */
  render(name: string, data: Record<string, unknown> = {}): string {
    return this.renderFile(resolveTemplateName(name), { ...this.#shared, ...data })
  }

  /** Renders an already resolved template file name with exactly `context`. */
  renderFile(file: string, context: Record<string, unknown>): string {
    if (this.debug) this.#forgetChanged()
    try {
      return this.env.render(file, context)
    } catch (error) {
      throw this.#templateError(file, error)
    }
  }

  /** True when some templates folder has `name`. */
  exists(name: string): boolean {
    const file = resolveTemplateName(name)
    return this.paths.some((dir) => existsSync(join(dir, file)))
  }

  /** The view bound to one request, with the session, auth and request globals. */
  forContext(ctx: HttpContext): ContextView {
    return new ContextView(this, ctx)
  }

  /**
   * The HTML error page: the app's `errors/<status>.html`, else its `errors/error.html`, else the
   * framework's. Never throws: a broken app template falls back to the framework page.
   */
  renderErrorPage(data: ErrorPageData): string {
    for (const name of [`errors/${data.status}.html`, 'errors/error.html']) {
      if (!this.exists(name)) continue
      try {
        return this.render(name, errorPageContext(data))
      } catch {
        break
      }
    }
    return renderErrorPage(data)
  }

  /** Debug mode: drops every compiled template when a file they were looked up at has changed, appeared or gone. */
  #forgetChanged(): void {
    for (const [path, mark] of this.#looked) {
      if (fileMark(path) === mark) continue
      const env = this.#env as CachingEnvironment | undefined
      this.#looked.clear()
      env?.invalidateCache()
      return
    }
  }

  #templateError(file: string, error: unknown): Error {
    if (error instanceof HttpError && !(error instanceof InternalError)) return error
    const location = locateTemplateError(error, file, [this.#app.basePath ?? '', ...this.paths].filter(Boolean))
    if (this.debug) return new TemplateRenderError(location, error)
    return new InternalError(undefined, { cause: new TemplateRenderError(location, error) })
  }
}

/** Nunjucks 3's `Environment` empties its loaders' template caches with `invalidateCache()` (not in its typings). */
type CachingEnvironment = nunjucks.Environment & { invalidateCache(): void }

const MISSING = '-'

/** What is at `path`: its inode, size and times, or `MISSING`. */
function fileMark(path: string): string {
  const stat = statSync(path, { throwIfNoEntry: false })
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : MISSING
}
