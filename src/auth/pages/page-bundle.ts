/**
 * @module auth/pages/page-bundle
 * `GET /auth/pages.js`: the auth pages' script (page-script.ts) after the 5,000 most common
 * passwords of `@zxcvbn-ts/language-common` (already a dependency; nothing from a CDN), as one
 * file built on first use. It changes only when the framework is upgraded: an ETag lets browsers
 * revalidate it cheaply.
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { HttpContext } from '../../http/context.js'
import { PAGE_SCRIPT } from './page-script.js'

/** How many of the most common passwords the browser's estimate knows (about 40 KB). */
export const COMMON_IN_BROWSER = 5000

interface Bundle {
  body: string
  etag: string
}

let bundle: Bundle | undefined

function build(): Bundle {
  const { dictionary } = createRequire(import.meta.url)('@zxcvbn-ts/language-common') as { dictionary: Record<string, readonly string[]> }
  const common = (dictionary['passwords-common'] ?? []).slice(0, COMMON_IN_BROWSER).map((p) => p.toLowerCase())
  // JSON is valid JavaScript; `</` is escaped so no entry can end a script element.
  const list = JSON.stringify(common).replace(/<\//g, '<\\/')
  const body = `var COMMON = new Set(${list});\n${PAGE_SCRIPT}`
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

/** The script, built and cached on first use. */
export function pageScriptBundle(): Bundle {
  bundle ??= build()
  return bundle
}

/** The route handler of `GET /auth/pages.js`. */
export function servePageScript(ctx: HttpContext): unknown {
  const { body, etag } = pageScriptBundle()
  const { response } = ctx
  response.header('Cache-Control', 'private, max-age=3600')
  response.header('ETag', etag)
  if (ctx.request.header('if-none-match') === etag) {
    response.status(304)
    response.body = null
    return response
  }
  response.header('Content-Type', 'text/javascript; charset=utf-8')
  response.status(200)
  response.body = body
  return response
}
