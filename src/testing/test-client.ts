/**
 * @module testing/test-client
 * `TestClient`: boots the app in this process (as `craft serve` would, without a port) and sends
 * requests straight into its request listener. It keeps cookies like a browser, adds the CSRF
 * token to state-changing requests on routes that check it, logs a user in (`actingAs`) and
 * issues API tokens (`withToken`).
 *
 * ```ts
 * const client = await TestClient.create()          // the app around process.cwd()
 * after(() => client.close())
 * await client.actingAs(user)
 * ;(await client.get('/home')).assertOk().assertSee(user.name)
 * ```
 *
 * On SQLite the app gets a fresh in-memory database, migrated, for each client (each test file
 * runs in its own process under `node --test`); on PostgreSQL or MySQL it uses `DATABASE_URL`.
 */
import { dirname, join, resolve } from 'node:path'
import type { Application } from '../foundation/application.js'
import { loadEnvironment } from '../foundation/bootstrap.js'
import { createApplication } from '../app/create-application.js'
import { RequestHandler } from '../http/request-handler.js'
import type { HttpContext } from '../http/context.js'
import type { RouteRuntime } from '../routing/handler-resolver.js'
import { startSession, saveSession } from '../session/session-middleware.js'
import { VerifyCsrfTokenMiddleware } from '../session/verify-csrf-token-middleware.js'
import { normalizeDriver, type DatabaseManager } from '../database/database-manager.js'
import { Migrator } from '../database/migrator.js'
import { Logger, type LogLevel } from '../support/logger.js'
import { registerTypeScript } from '../cli/index.js'
import { findModule } from '../foundation/module-finder.js'
import { CookieStore } from './cookie-store.js'
import { fakeIncomingMessage, inject } from './inject.js'
import { TestResponse } from './test-response.js'
import { fakeMail, type FakeMail } from './fake-mail.js'

export interface TestClientOptions {
  /** The app folder; default: the nearest folder holding `Kernel.ts`, from `process.cwd()` up. */
  root?: string
  /** Run the app's migrations before the first request (default true). */
  migrate?: boolean
  /**
   * `memory` (default): on SQLite, a fresh in-memory database (`DB_DATABASE=:memory:`), so tests
   * never touch `storage/database.sqlite`. `app`: the database the app's config names.
   */
  database?: 'memory' | 'app'
  /** Environment variables set before the app boots (they win over `.env`). */
  env?: Record<string, string>
  /** Lowest level of app log lines printed (default `warn`); every line is kept in `client.logs`. */
  logLevel?: LogLevel | 'silent'
  /**
   * `fake` (default): the app's mails are kept in memory for assertions (`client.mail`), never
   * sent or printed. `app`: the driver of `config/mail.ts`.
   */
  mail?: 'fake' | 'app'
}

export interface RequestOptions {
  headers?: Record<string, string>
  /** Send `data` as JSON (and ask for JSON) instead of a url-encoded form. */
  json?: boolean
  /** A raw body (with your own `content-type` header). */
  body?: string | Buffer
  /** Add the CSRF token when the route checks it (default true). */
  csrf?: boolean
}

type Data = Record<string, unknown>
type UserLike = { getKey(): unknown } | string | number

interface Shared {
  app: Application
  handler: RequestHandler
  logs: string[]
}

export class TestClient {
  readonly app: Application
  /** This client's cookies (session, login). */
  readonly cookies = new CookieStore()
  /** Every log line the app wrote, oldest first. */
  readonly logs: string[]
  /** Headers sent with every request of this client (`withHeaders`, `withToken`). */
  readonly headers: Record<string, string> = {}
  /** The JWT `withToken` issued, or null. */
  token: string | null = null
  readonly #shared: Shared

  private constructor(shared: Shared) {
    this.#shared = shared
    this.app = shared.app
    this.logs = shared.logs
  }

  /** Boots the app (see `TestClientOptions`) and returns a client with an empty cookie jar. */
  static async create(options: TestClientOptions = {}): Promise<TestClient> {
    const root = options.root ? resolve(options.root) : findAppRoot(process.cwd())
    for (const [key, value] of Object.entries(options.env ?? {})) process.env[key] = value
    loadEnvironment(root)
    if ((options.database ?? 'memory') === 'memory' && normalizeDriver(process.env.DB_CONNECTION || 'sqlite') === 'sqlite') {
      process.env.DB_DATABASE = ':memory:'
    }
    await registerTypeScript()
    const logs: string[] = []
    const level = options.logLevel ?? 'warn'
    const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 }
    const log = new Logger({
      level: 'debug',
      sink: (line, lineLevel) => {
        logs.push(line)
        if (level !== 'silent' && order[lineLevel] >= order[level]) process.stderr.write(line + '\n')
      },
    })
    const app = await createApplication(root, { mode: 'http', log })
    try {
      if (options.migrate !== false) {
        await new Migrator(app.make<DatabaseManager>('db.manager').connection(), app.path('databases', 'migrations')).run()
        // The auth read which tables the app has when it booted, before this migration.
        if (app.has('auth.manager') && app.config('auth')?.GUARDS) await app.make('auth.manager').inventory.migrated.load()
      }
    } catch (error) {
      await app.shutdown()
      throw error
    }
    if ((options.mail ?? 'fake') === 'fake') fakeMail(app)
    return new TestClient({ app, handler: new RequestHandler(app), logs })
  }

  /** The mails the app sent (see `fakeMail`); with `mail: 'app'`, faked from this call on. */
  get mail(): FakeMail {
    return fakeMail(this.app)
  }

  /** Another client on the same app with its own cookies and headers (a second browser). */
  newClient(): TestClient {
    return new TestClient(this.#shared)
  }

  /** Closes the app's pools and stores. Call it once, in `after()`. */
  close(): Promise<void> {
    return this.app.shutdown()
  }

  get(path: string, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('GET', path, undefined, options)
  }

  post(path: string, data?: Data, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('POST', path, data, options)
  }

  put(path: string, data?: Data, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('PUT', path, data, options)
  }

  patch(path: string, data?: Data, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('PATCH', path, data, options)
  }

  delete(path: string, data?: Data, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('DELETE', path, data, options)
  }

  /** `get` asking for JSON (`Accept: application/json`). */
  getJson(path: string, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('GET', path, undefined, { ...options, json: true })
  }

  /** `post` with a JSON body. */
  postJson(path: string, data?: Data, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('POST', path, data, { ...options, json: true })
  }

  putJson(path: string, data?: Data, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('PUT', path, data, { ...options, json: true })
  }

  patchJson(path: string, data?: Data, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('PATCH', path, data, { ...options, json: true })
  }

  deleteJson(path: string, data?: Data, options: RequestOptions = {}): Promise<TestResponse> {
    return this.request('DELETE', path, data, { ...options, json: true })
  }

  /** Sends one request through the app. Redirects are not followed (see `follow`). */
  async request(method: string, path: string, data?: Data, options: RequestOptions = {}): Promise<TestResponse> {
    method = method.toUpperCase()
    const headers: Record<string, string> = { 'user-agent': 'trowel-test-client', ...this.headers }
    let body: string | Buffer | undefined = options.body
    if (options.json) headers.accept = 'application/json'
    if (data !== undefined && body === undefined) {
      if (options.json) {
        body = JSON.stringify(data)
        headers['content-type'] = 'application/json'
      } else {
        body = formEncode(data)
        headers['content-type'] = 'application/x-www-form-urlencoded'
      }
    }
    Object.assign(headers, lowerKeys(options.headers ?? {}))
    const hasToken = data !== undefined && (Object.hasOwn(data, '__token') || Object.hasOwn(data, '_token'))
    if (options.csrf !== false && !hasToken && headers['x-csrf-token'] === undefined && this.#checksCsrf(method, path)) {
      headers['x-csrf-token'] = await this.csrfToken()
    }
    const cookie = this.cookies.header()
    if (cookie !== undefined && headers.cookie === undefined) headers.cookie = cookie
    const answer = await inject(this.#shared.handler.listener, { method, url: path, headers, body })
    const setCookies = answer.headers['set-cookie']
    if (Array.isArray(setCookies)) this.cookies.apply(setCookies)
    return new TestResponse({ status: answer.statusCode, headers: answer.headers, text: answer.body.toString('utf8'), method, path })
  }

  /** GETs the Location of a redirect response (one hop). */
  follow(response: TestResponse): Promise<TestResponse> {
    response.assertRedirect()
    const target = new URL(response.location!, 'http://localhost')
    return this.get(target.pathname + target.search)
  }

  /** Adds headers to every later request of this client. */
  withHeaders(headers: Record<string, string>): this {
    Object.assign(this.headers, lowerKeys(headers))
    return this
  }

  /**
   * Logs `user` (a model or its primary key) in on the web guard (or `guard`), exactly as a
   * successful login would: a login cookie and a fresh session.
   */
  async actingAs(user: UserLike, guard?: string): Promise<this> {
    const id = typeof user === 'object' ? user.getKey() : user
    await this.#withContext(async (ctx) => {
      const auth = guard ? ctx.auth.guard(guard) : ctx.auth
      const found = await auth.attemptById(id)
      if (!found) throw new Error(`actingAs(): there is no user with primary key ${String(id)}.`)
    })
    return this
  }

  /** Forgets this client's cookies, so it is a logged-out visitor again. */
  logout(): this {
    this.cookies.clear()
    return this
  }

  /**
   * Issues an API token for `user` (a model or its primary key), as `POST /api/auth` would, and
   * sends it as `Authorization: Bearer <JWT>` from now on. Needs `ApiProvider`.
   */
  async withToken(user: UserLike): Promise<this> {
    if (!this.app.has('api.jwt')) {
      throw new Error('withToken() needs the JWT API: add ApiProvider to PROVIDERS in config/providers.ts (see docs/jwt-api.md).')
    }
    const service = this.app.make<{ issue(user: unknown): Promise<string>; findById(id: string): Promise<unknown> }>('api.jwt')
    const model = typeof user === 'object' ? user : await service.findById(String(user))
    if (!model) throw new Error(`withToken(): there is no user with primary key ${String(user)}.`)
    this.token = await service.issue(model)
    this.headers.authorization = `Bearer ${this.token}`
    return this
  }

  /** Stops sending the API token. */
  withoutToken(): this {
    delete this.headers.authorization
    this.token = null
    return this
  }

  /** An argon2id hash of `password`, e.g. for `User.create({ ..., password: await client.hashPassword('...') })`. */
  hashPassword(password: string): Promise<string> {
    return this.app.make<{ hash(p: string): Promise<string> }>('hasher').hash(password)
  }

  /** The CSRF token of this client's session (starting a session when there is none). */
  async csrfToken(): Promise<string> {
    let token = ''
    await this.#withContext(async (ctx) => {
      token = ctx.session.token()
    })
    return token
  }

  /** True when `method path` matches a route whose middleware checks the CSRF token. */
  #checksCsrf(method: string, path: string): boolean {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) return false
    const q = path.indexOf('?')
    const match = this.app.router.match(method, q === -1 ? path : path.slice(0, q))
    if (match.kind !== 'found' || match.route.definition.csrfExempt) return false
    const runtime = match.route.runtime as RouteRuntime | undefined
    const global = this.app.kernel.httpMiddleware as unknown[]
    return Boolean(runtime?.middleware.some((m) => m.instance instanceof VerifyCsrfTokenMiddleware)) || global.includes(VerifyCsrfTokenMiddleware)
  }

  /**
   * Runs `fn` with the context the server would give `GET /` from this client (its cookies, a
   * session), then keeps the cookies it set. Built by the app's RequestHandler, as requests are.
   */
  async #withContext(fn: (ctx: HttpContext) => Promise<void>): Promise<void> {
    const cookie = this.cookies.header()
    const raw = fakeIncomingMessage({ method: 'GET', url: '/', headers: { 'user-agent': 'trowel-test-client', ...(cookie ? { cookie } : {}) } })
    const { ctx } = this.#shared.handler.createContext(raw)
    await startSession(this.app, ctx)
    await fn(ctx)
    await saveSession(ctx)
    this.cookies.apply([...ctx.response.cookies.values()])
  }
}

function findAppRoot(from: string): string {
  let dir = resolve(from)
  for (;;) {
    if (findModule(join(dir, 'Kernel'))) return dir
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`TestClient: no Trowel app (a folder with Kernel.ts) at or above ${from}; pass { root }.`)
    dir = parent
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
}

function formEncode(data: Data): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) params.append(key, one === null ? '' : String(one))
  }
  return params.toString()
}
