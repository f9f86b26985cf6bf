/**
 * @module auth/pages/page-bundle
 * `GET /auth/pages.js`: the auth pages' script (page-script.ts) with the `@zxcvbn-ts/core`
 * password-strength estimator and the `@zxcvbn-ts/language-common` dictionaries, bundled for the
 * browser by esbuild on first use (served by the app: nothing from a CDN; about 460 KB minified,
 * 230 KB gzipped, fetched only by the auth pages and cached). It changes only when the framework is
 * upgraded: an ETag lets browsers revalidate it cheaply.
 */
import { createHash } from 'node:crypto'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { HttpContext } from '../../http/context.js'
import { PAGE_SCRIPT } from './page-script.js'

interface Bundle {
  body: string
  etag: string
}

/** The estimator, made from the common dictionaries and keyboard graphs; then the page script. */
const ENTRY = `
import { ZxcvbnFactory } from '@zxcvbn-ts/core'
import { dictionary, adjacencyGraphs } from '@zxcvbn-ts/language-common'
var ZXCVBN = new ZxcvbnFactory({ dictionary: dictionary, graphs: adjacencyGraphs });
${PAGE_SCRIPT}
`

let bundle: Promise<Bundle> | undefined

async function build(): Promise<Bundle> {
  const esbuild = await import('esbuild')
  const result = await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: dirname(fileURLToPath(import.meta.url)), loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2019',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  })
  // Escaped so no string in the dictionaries can end a script element.
  const body = result.outputFiles[0]!.text.replace(/<\/(script)/gi, '<\\/$1')
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

/** The script, built and cached on first use (a failed build is retried on the next request). */
export function pageScriptBundle(): Promise<Bundle> {
  bundle ??= build().catch((error: unknown) => {
    bundle = undefined
    throw error
  })
  return bundle
}

/** The route handler of `GET /auth/pages.js`. */
export async function servePageScript(ctx: HttpContext): Promise<unknown> {
  const { body, etag } = await pageScriptBundle()
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
