/**
 * @module session/session-browser
 * Test support for the session tests: `FakeSessionApp` (the parts of `Application` the session
 * code uses) and `SessionBrowser`, a cookie-keeping client that runs the web stack (session,
 * CSRF) around a handler. Not exported from `session/index.ts`.
 */
import type { IncomingMessage } from 'node:http'
import { Container } from '../container/container.js'
import { CookieJar } from '../http/cookie-jar.js'
import { Request } from '../http/request.js'
import { Response } from '../http/response.js'
import { HttpContext } from '../http/context.js'
import type { Application } from '../foundation/application.js'
import { SessionMiddleware } from './session-middleware.js'
import type { SessionStore } from './session-store.js'
import { MemorySessionStore } from './stores/memory-session-store.js'
import { VerifyCsrfTokenMiddleware } from './verify-csrf-token-middleware.js'

export const APP_KEY = 'base64:' + Buffer.alloc(32, 7).toString('base64')

/** The parts of Application the session code uses. */
export class FakeSessionApp extends Container {
  basePath = '/tmp/trowel-session-test'
  isDebug = false
  logs: { level: string; event: string }[] = []
  log = {
    info: (event: string) => this.logs.push({ level: 'info', event }),
    warn: (event: string) => this.logs.push({ level: 'warn', event }),
    error: (event: string) => this.logs.push({ level: 'error', event }),
  }
  #config: Record<string, unknown>
  constructor(session: Record<string, unknown> = {}, store?: SessionStore) {
    super()
    this.#config = { session: { SESSION: session } }
    if (store) this.bind('session.store', store)
  }
  path(...s: string[]): string {
    return [this.basePath, ...s].join('/')
  }
  config<T = any>(name: string): T | undefined {
    return this.#config[name] as T | undefined
  }
  onShutdown(): void {}
}

export interface FakeRequest {
  method?: string
  path?: string
  body?: Record<string, unknown>
  headers?: Record<string, string>
  secure?: boolean
}

/** A cookie-keeping client that runs the web stack (session, CSRF) around a handler. */
export class SessionBrowser {
  readonly cookies = new Map<string, string>()
  readonly jar = new CookieJar(APP_KEY)
  constructor(readonly app: FakeSessionApp) {}

  async request(req: FakeRequest, handler: (ctx: HttpContext) => unknown = () => 'ok') {
    const headers: Record<string, string> = { ...req.headers }
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    const raw = {
      method: req.method ?? 'GET',
      url: req.path ?? '/',
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      socket: { remoteAddress: '127.0.0.1', encrypted: req.secure ?? false },
    } as unknown as IncomingMessage
    const request = new Request(raw, { trustProxy: 0, cookies: this.jar })
    if (req.body) request.body = req.body
    const response = new Response({ cookies: this.jar, secure: req.secure ?? false, urlFor: () => '/' })
    const app = this.app as unknown as Application
    const ctx = new HttpContext(app, request, response, null)
    const stack = [new SessionMiddleware(app), new VerifyCsrfTokenMiddleware(app)]
    let handlerRan = false
    let error: unknown
    try {
      for (const m of stack) await m.before?.(ctx)
      handlerRan = true
      await handler(ctx)
      for (const m of [...stack].reverse()) await m.after?.(ctx)
    } catch (e) {
      error = e
    }
    for (const [name, header] of response.cookies) {
      const value = header.slice(name.length + 1, header.indexOf(';') === -1 ? undefined : header.indexOf(';'))
      if (/Max-Age=0\b/i.test(header) || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return { ctx, response, handlerRan, error, setCookies: [...response.cookies.values()] }
  }
}

/** An app on the `memory` driver, with its store and a browser on it. */
export function memoryApp(extra: Record<string, unknown> = {}) {
  const store = new MemorySessionStore()
  const app = new FakeSessionApp({ driver: 'memory', ...extra }, store)
  return { store, app, browser: new SessionBrowser(app) }
}
