/**
 * @module http/server
 * A node:http server around the request handler, with a graceful stop: on `close()` it stops
 * accepting, lets in-flight requests finish (up to a grace period), then runs the app's
 * shutdown hooks (closing database pools and stores).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { HttpApplication } from './http-application.js'
import { RequestHandler } from './request-handler.js'

export interface RunningServer {
  server: Server
  url: string
  port: number
  close(graceMs?: number): Promise<void>
}

export async function startServer(app: HttpApplication, options: { host?: string; port?: number } = {}): Promise<RunningServer> {
  const handler = new RequestHandler(app)
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 20_000, keepAliveTimeout: 65_000 }, handler.listener)
  server.on('clientError', (error, socket) => {
    if (!socket.writable) return socket.destroy()
    const code = (error as { code?: string }).code
    const status = code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request'
    // The answer is written and the rest of what the client sends is read and dropped before the
    // socket closes: a socket closed with unread input is reset, and the reset can reach the client
    // before the answer, which it then never reads. Bounded: closed when the client ends, or after
    // half a second whatever it still sends.
    socket.on('error', () => socket.destroy())
    socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
    socket.resume()
    const timer = setTimeout(() => socket.destroy(), 500)
    timer.unref()
    socket.once('end', () => socket.destroy())
    socket.once('close', () => clearTimeout(timer))
  })
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
