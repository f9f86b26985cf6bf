/**
 * @module testing/inject
 * Runs one request through a node:http request listener in this process, with no socket and no
 * port: a readable stand-in for `IncomingMessage` (method, url, headers, body, a socket that
 * reports 127.0.0.1) and a stand-in for `ServerResponse` that records what the listener writes.
 * Trowel's `RequestHandler.listener` only calls `writeHead`, `end` and `destroy` on the response,
 * which is what the stand-in implements.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'

export interface InjectRequest {
  method: string
  /** Path and query string, e.g. `/posts?page=2`. */
  url: string
  headers?: Record<string, string | string[] | undefined>
  body?: string | Buffer
  /** The client address the app sees (default `127.0.0.1`). */
  remoteAddress?: string
}

export interface InjectResponse {
  statusCode: number
  /** Lower-case header names; `set-cookie` is always an array. */
  headers: Record<string, string | string[]>
  body: Buffer
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void

class InjectedRequest extends Readable {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly rawHeaders: string[] = []
  readonly httpVersion = '1.1'
  readonly httpVersionMajor = 1
  readonly httpVersionMinor = 1
  readonly socket: { remoteAddress: string; encrypted: boolean; destroy(): void }
  complete = false
  #body: Buffer | null

  constructor(request: InjectRequest) {
    super()
    this.method = request.method.toUpperCase()
    this.url = request.url
    const headers: IncomingHttpHeaders = {}
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      if (value === undefined) continue
      headers[name.toLowerCase()] = value as string
      for (const one of Array.isArray(value) ? value : [value]) this.rawHeaders.push(name, one)
    }
    this.#body = request.body === undefined ? null : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8')
    if (this.#body !== null && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
      headers['content-length'] = String(this.#body.length)
    }
    headers.host ??= 'localhost'
    this.headers = headers
    this.socket = { remoteAddress: request.remoteAddress ?? '127.0.0.1', encrypted: false, destroy: () => undefined }
  }

  get connection() {
    return this.socket
  }

  override _read(): void {
    if (this.#body !== null && this.#body.length > 0) this.push(this.#body)
    this.#body = null
    this.complete = true
    this.push(null)
  }
}

class RecordingResponse {
  statusCode = 200
  statusMessage = ''
  headersSent = false
  destroyed = false
  writableEnded = false
  #headers: Record<string, string | string[]> = {}
  #chunks: Buffer[] = []
  readonly #done: (value: InjectResponse | Error) => void

  constructor(done: (value: InjectResponse | Error) => void) {
    this.#done = done
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.#headers[name.toLowerCase()] = Array.isArray(value) ? [...value] : String(value)
    return this
  }

  getHeader(name: string): string | string[] | undefined {
    return this.#headers[name.toLowerCase()]
  }

  removeHeader(name: string): void {
    delete this.#headers[name.toLowerCase()]
  }

  /** node's signature: `writeHead(status, [reason], [headers])`. */
  writeHead(status: number, reasonOrHeaders?: string | OutgoingHttpHeaders, maybeHeaders?: OutgoingHttpHeaders): this {
    if (this.headersSent) throw new Error('writeHead after the headers were sent')
    const headers = typeof reasonOrHeaders === 'object' ? reasonOrHeaders : maybeHeaders
    if (typeof reasonOrHeaders === 'string') this.statusMessage = reasonOrHeaders
    this.statusCode = status
    for (const [name, value] of Object.entries(headers ?? {})) {
      if (value !== undefined) this.setHeader(name, value as string | number | string[])
    }
    this.headersSent = true
    return this
  }

  write(chunk: string | Buffer): boolean {
    this.headersSent = true
    this.#chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, 'utf8'))
    return true
  }

  end(chunk?: string | Buffer): this {
    if (this.writableEnded) return this
    if (chunk !== undefined && chunk !== null) this.write(chunk)
    this.headersSent = true
    this.writableEnded = true
    const headers = { ...this.#headers }
    const cookies = headers['set-cookie']
    if (cookies !== undefined) headers['set-cookie'] = Array.isArray(cookies) ? cookies : [cookies]
    this.#done({ statusCode: this.statusCode, headers, body: Buffer.concat(this.#chunks) })
    return this
  }

  destroy(error?: Error): this {
    if (this.destroyed || this.writableEnded) return this
    this.destroyed = true
    this.#done(error ?? new Error('the app destroyed the response without answering'))
    return this
  }
}

/** An `IncomingMessage` stand-in for code that needs a request but not a listener. */
export function fakeIncomingMessage(request: InjectRequest): IncomingMessage {
  return new InjectedRequest(request) as unknown as IncomingMessage
}

/** Sends `request` to `listener` and resolves with what it answered. */
export function inject(listener: RequestListener, request: InjectRequest): Promise<InjectResponse> {
  return new Promise((resolve, reject) => {
    const res = new RecordingResponse((value) => (value instanceof Error ? reject(value) : resolve(value)))
    const req = new InjectedRequest(request)
    listener(req as unknown as IncomingMessage, res as unknown as ServerResponse)
  })
}
