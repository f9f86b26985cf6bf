/**
 * @module http/result
 * What a handler returns becomes the response: a string is HTML, a `Response` is sent as is,
 * `undefined` keeps whatever the handler did to `ctx.response`, anything else (objects, arrays,
 * models) is JSON through `toJSON()`, so a model's hidden fields never leave.
 */
import type { HttpContext } from './context.js'
import { Response } from './response.js'

export function applyResult(ctx: HttpContext, result: unknown): void {
  if (result === undefined || result === ctx.response) return
  if (result instanceof Response) {
    ctx.response.statusCode = result.statusCode
    ctx.response.body = result.body
    for (const [k, v] of result.headers) ctx.response.headers.set(k, v)
    for (const [k, v] of result.cookies) ctx.response.cookies.set(k, v)
    return
  }
  if (typeof result === 'string') {
    ctx.response.html(result)
    return
  }
  if (Buffer.isBuffer(result)) {
    ctx.response.header('content-type', 'application/octet-stream')
    ctx.response.body = result
    return
  }
  ctx.response.json(result)
}
