/**
 * @module http/send
 * Writes a built `Response` to node's ServerResponse, adding the default security headers:
 * `X-Content-Type-Options: nosniff` on everything; on HTML also `X-Frame-Options: DENY` and
 * `Referrer-Policy: strict-origin-when-cross-origin` unless the handler chose its own.
 */
import type { ServerResponse } from 'node:http'
import type { Response } from './response.js'
import { extraStatusText } from './status-text.js'

export function send(res: ServerResponse, response: Response, head: boolean): void {
  if (res.headersSent || res.destroyed) return
  const headers: Record<string, string | string[]> = {}
  for (const [k, v] of response.headers) headers[k] = v
  if (!headers['x-content-type-options']) headers['x-content-type-options'] = 'nosniff'
  const type = headers['content-type']
  if (typeof type === 'string' && type.startsWith('text/html')) {
    headers['x-frame-options'] ??= 'DENY'
    headers['referrer-policy'] ??= 'strict-origin-when-cross-origin'
  }
  const cookies = response.setCookieValues()
  if (cookies !== undefined) headers['set-cookie'] = cookies
  const body = response.body
  const status = response.statusCode
  if (body === null || status === 204 || status === 304) {
    if (status !== 204 && status !== 304) headers['content-length'] = '0'
    res.writeHead(status, extraStatusText(status), headers)
    res.end()
    return
  }
  // A string body goes to `end()` as is: node then writes the head and the body in one chunk
  // (a Buffer would be a second chunk, sent with writev).
  headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length)
  res.writeHead(status, extraStatusText(status), headers)
  if (head) res.end()
  else res.end(body, 'utf8')
}
