/**
 * @module http/server
 * A node:http server around the request handler, with a graceful stop: on `close()` it stops
 * accepting, lets in-flight requests finish (up to a grace period), then runs the app's
 * shutdown hooks (closing database pools and stores).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { HttpApplication } from './http-application.js'
import { RequestHandler } from './request-handler.js'

export interface RunningServer {
  server: Server
  url: string
  port: number
  close(graceMs?: number): Promise<void>
}

/** How long a client may take (ms): the defaults suit production; tests shorten them. */
export interface ServerTimeouts {
  /** To send a request's headers, counted from its first byte, or from the connection for its first request (default 20 s). */
  headersMs?: number
  /** To send a whole request (default 30 s). */
  requestMs?: number
  /** An idle keep-alive connection stays open this long (default 65 s, past common proxies' 60 s). */
  keepAliveMs?: number
  /** How often the two limits above are checked (Node's default, 30 s). */
  checkEveryMs?: number
}

export interface ServerOptions {
  host?: string
  port?: number
  timeouts?: ServerTimeouts
}

export async function startServer(app: HttpApplication, options: ServerOptions = {}): Promise<RunningServer> {
  const handler = new RequestHandler(app)
  const t = options.timeouts ?? {}
  const server = createServer(
    {
      requestTimeout: t.requestMs ?? 30_000,
      headersTimeout: t.headersMs ?? 20_000,
      keepAliveTimeout: t.keepAliveMs ?? 65_000,
      ...(t.checkEveryMs !== undefined ? { connectionsCheckingInterval: t.checkEveryMs } : {}),
    },
    handler.listener,
  )
  server.on('clientError', answerClientError)
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 8000, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const shownHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  return {
    server,
    port,
    url: `http://${shownHost}:${port}`,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs)
        timer.unref()
        server.close(() => {
          clearTimeout(timer)
          resolve()
        })
        server.closeIdleConnections()
      }).then(() => app.shutdown())
      return closing
    },
  }
}

/**
 * A request the parser refused (malformed, headers too large) or one too slow to arrive.
 *
 * - A connection that timed out before sending a byte is closed without an answer. Browsers open
 *   spare connections ahead of need and may send a request on one at any moment: an unasked-for
 *   "408" written there would be read as the answer to that request (Chromium shows its error
 *   page), while a plain close makes the browser send the request again on a new connection.
 * - Otherwise the answer (431 for headers too large, 408 for too slow, else 400) is written and
 *   what the client still sends is read and dropped before the socket closes: a socket closed
 *   with unread input is reset, and the reset can reach the client before the answer, which it
 *   then never reads. Bounded: closed when the client ends, or after half a second whatever it
 *   still sends.
 */
export function answerClientError(error: Error, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy()
  const code = (error as { code?: string }).code
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' && (socket as Socket).bytesRead === 0) return void socket.destroy()
  const status =
    code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request'
  socket.on('error', () => socket.destroy())
  socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
  socket.resume()
  const timer = setTimeout(() => socket.destroy(), 500)
  timer.unref()
  socket.once('end', () => socket.destroy())
  socket.once('close', () => clearTimeout(timer))
}
