/**
 * @module http/script-asset
 * A JavaScript file the framework makes at run time (a browser library and a page script, bundled
 * or joined), served by a route: made on first use and cached (a failure is retried on the next
 * request), with an ETag so browsers revalidate it cheaply (it changes only when the framework is
 * upgraded), `nosniff`, and a private one-hour cache.
 */
import { createHash } from 'node:crypto'
import type { HttpContext } from './context.js'

export interface ScriptAsset {
  body: string
  etag: string
}

export interface ServedScript {
  /** The script and its ETag, made on the first call. */
  load(): Promise<ScriptAsset>
  /** The route handler: 200 with the script, or 304 to a browser that has it. */
  serve(ctx: HttpContext): Promise<unknown>
}

/** A script made by `make` on first use, then served from memory. */
export function servedScript(make: () => Promise<string>): ServedScript {
  let asset: Promise<ScriptAsset> | undefined
  const load = (): Promise<ScriptAsset> => {
    asset ??= make().then(
      (body) => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }),
      (error: unknown) => {
        asset = undefined
        throw error
      },
    )
    return asset
  }
  const serve = async (ctx: HttpContext): Promise<unknown> => {
    const { body, etag } = await load()
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
  return { load, serve }
}
