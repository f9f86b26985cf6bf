/**
 * @module auth/passkeys/client-bundle
 * `GET /passkeys/client.js`: @simplewebauthn/browser's browser build (read once from the installed
 * package, no CDN) followed by the passkey page script (client-script.ts), as one file. It changes
 * only when the framework is upgraded: an ETag lets browsers revalidate it cheaply.
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { HttpContext } from '../../http/context.js'
import { PASSKEY_CLIENT_SCRIPT } from './client-script.js'

interface Bundle {
  body: string
  etag: string
}

let bundle: Promise<Bundle> | undefined

/** The library's ES2021 UMD build: `<package>/dist/bundle/index.umd.min.js` (the package exports only its entry). */
async function load(): Promise<Bundle> {
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser')
  // The entry is `<package>/script/index.js`.
  const library = await readFile(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8')
  const body = `${library}\n${PASSKEY_CLIENT_SCRIPT}`
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

/** The script, read and cached on first use. */
export function passkeyClientBundle(): Promise<Bundle> {
  bundle ??= load().catch((error: unknown) => {
    bundle = undefined
    throw error
  })
  return bundle
}

/** The route handler of `GET /passkeys/client.js`. */
export async function servePasskeyClient(ctx: HttpContext): Promise<unknown> {
  const { body, etag } = await passkeyClientBundle()
  const { response } = ctx
  response.header('Cache-Control', 'private, max-age=3600')
  response.header('ETag', etag)
  response.header('X-Content-Type-Options', 'nosniff')
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
