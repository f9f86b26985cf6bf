/**
 * @module view/error-page
 * `renderErrorPage({ status, message, code, stack })`: the framework's HTML error page
 * (`templates/errors/error.html`), rendered without an app, so it works before boot, when the app
 * has no templates, and when its own templates are broken. Pass `stack` only in debug mode.
 */
import type nunjucks from 'nunjucks'
import { loadNunjucks } from './load-nunjucks.js'
import { FRAMEWORK_TEMPLATES_DIR } from './framework-templates.js'
import { statusText } from '../http/status-text.js'

export interface ErrorPageData {
  status: number
  message: string
  code: string
  /** Shown only when given (debug mode). */
  stack?: string
  [key: string]: unknown
}

let env: nunjucks.Environment | undefined

/** What every error template gets: the data and `title`, the status's reason phrase. */
export function errorPageContext(data: ErrorPageData): ErrorPageData & { title: string } {
  return { ...data, title: statusText(data.status) }
}

export function renderErrorPage(data: ErrorPageData): string {
  const context = errorPageContext(data)
  try {
    const { Environment, FileSystemLoader } = loadNunjucks()
    env ??= new Environment(new FileSystemLoader(FRAMEWORK_TEMPLATES_DIR, { noCache: false }), {
      autoescape: true,
      throwOnUndefined: false,
    })
    // The layout asks which routes exist; without an app, none does.
    env.addGlobal('has_route', () => false)
    return env.render('errors/error.html', context)
  } catch {
    return fallbackPage(context)
  }
}

function fallbackPage(data: ErrorPageData & { title: string }): string {
  const e = (value: unknown): string =>
    String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${e(data.status)} ${e(data.title)}</title></head>` +
    `<body><h1>${e(data.status)} ${e(data.title)}</h1><p>${e(data.message)}</p><p><code>${e(data.code)}</code></p>` +
    (data.stack ? `<pre>${e(data.stack)}</pre>` : '') +
    '</body></html>'
  )
}
