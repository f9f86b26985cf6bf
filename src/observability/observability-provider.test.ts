/**
 * ObservabilityProvider in one process: an application assembled by hand (no app folder), its
 * routes served through the real RequestHandler with `inject`. The database is a SQLite file of
 * its own whatever DB_CONNECTION says, so that the test can take it away: the open handle is
 * closed (as an I/O error would) and the file's folder renamed, then put back.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Application } from '../foundation/application.js'
import { HttpKernel } from '../foundation/http-kernel.js'
import { CookieJar } from '../http/cookie-jar.js'
import { ExceptionHandler } from '../http/exception-handler.js'
import { RequestHandler } from '../http/request-handler.js'
import { resolveRoute } from '../foundation/route-resolver.js'
import { Route } from '../routing/route.js'
import type { RouteEntry } from '../routing/route-group.js'
import { DatabaseManager } from '../database/database-manager.js'
import { Logger } from '../support/logger.js'
import { inject, type InjectRequest } from '../testing/inject.js'
import { ObservabilityProvider } from './observability-provider.js'

const TOKEN = 'metrics-token-0123456789abcdef0123456789'
const roots: string[] = []
const managers: DatabaseManager[] = []

after(async () => {
  for (const m of managers) await m.close()
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

interface Built {
  app: Application
  root: string
  manager: DatabaseManager
  request(req: Partial<InjectRequest>): ReturnType<typeof inject>
}

/** Boots an app as createApplication does, in order: register, boot, web routes, resolve, booted hooks. */
async function build(options: { token?: string; routes?: RouteEntry[]; timeoutMs?: number; hasher?: object } = {}): Promise<Built> {
  const previous = process.env.METRICS_TOKEN
  if (options.token === undefined) delete process.env.METRICS_TOKEN
  else process.env.METRICS_TOKEN = options.token
  try {
    const root = mkdtempSync(join(tmpdir(), 'trowel-observability-'))
    roots.push(root)
    const app = new Application(root, { log: new Logger({ sink: () => {} }) })
    app.bind('app.mode', 'http')
    app.bind('cookies', new CookieJar('k'.repeat(40)))
    app.bind('exceptions', new ExceptionHandler(app))
    app.bind('middleware.instances', new Map())
    app.kernel = new HttpKernel(app)
    app.kernel.routeMiddleware.web = []
    const manager = new DatabaseManager({ default: 'sqlite', sqlite: { driver: 'sqlite', database: join(root, 'db', 'app.sqlite') } }, root)
    managers.push(manager)
    app.bind('db.manager', manager)
    if (options.hasher) app.bind('hasher', options.hasher)
    const provider = new ObservabilityProvider(app)
    app.providers.push(provider)
    await provider.register()
    await provider.boot()
    if (options.timeoutMs) (app.make('observability.health') as { timeoutMs: number }).timeoutMs = options.timeoutMs
    app.router.mount(options.routes ?? [], { middleware: ['web'] })
    for (const route of app.router.routes) route.runtime = await resolveRoute(app, route)
    for (const hook of app.get<(() => unknown)[]>('app.booted.hooks') ?? []) await hook()
    const handler = new RequestHandler(app)
    return { app, root, manager, request: (req) => inject(handler.listener, { method: 'GET', url: '/', ...req }) }
  } finally {
    if (previous === undefined) delete process.env.METRICS_TOKEN
    else process.env.METRICS_TOKEN = previous
  }
}

const body = (r: { body: Buffer }) => r.body.toString('utf8')

describe('GET /health', () => {
  it('answers 200 {"status":"ok"} as JSON, no-store, without a cookie', async () => {
    const { request } = await build()
    const r = await request({ url: '/health' })
    assert.equal(r.statusCode, 200)
    assert.deepEqual(JSON.parse(body(r)), { status: 'ok' })
    assert.match(String(r.headers['content-type']), /^application\/json/)
    assert.equal(r.headers['cache-control'], 'no-store')
    assert.equal(r.headers['set-cookie'], undefined)
    const head = await request({ method: 'HEAD', url: '/health' })
    assert.equal(head.statusCode, 200)
    const post = await request({ method: 'POST', url: '/health', headers: { accept: 'text/html' } })
    assert.equal(post.statusCode, 405)
    assert.match(String(post.headers['content-type']), /^application\/json/, 'errors on /health answer JSON too')
  })

  it('turns 503 {"status":"unavailable"} when the SQLite file cannot be opened, and 200 again once it can, without a restart', async () => {
    const { request, manager, root } = await build({ timeoutMs: 1500 })
    assert.equal((await request({ url: '/health' })).statusCode, 200)
    // The handle is closed (an I/O error would do the same) and its folder is gone.
    const knex = manager.connection()
    const raw = (await knex.client.acquireConnection()) as { close(): void }
    raw.close()
    await knex.client.releaseConnection(raw)
    renameSync(join(root, 'db'), join(root, 'db-away'))
    try {
      const down = await request({ url: '/health' })
      assert.equal(down.statusCode, 503)
      assert.deepEqual(JSON.parse(body(down)), { status: 'unavailable' })
      assert.equal(down.headers['cache-control'], 'no-store')
      assert.equal((await request({ url: '/health' })).statusCode, 503, 'still down')
    } finally {
      renameSync(join(root, 'db-away'), join(root, 'db'))
    }
    const up = await request({ url: '/health' })
    assert.equal(up.statusCode, 200, body(up))
    assert.deepEqual(JSON.parse(body(up)), { status: 'ok' })
  })

  it('is 503 when the database does not answer within the timeout', async () => {
    const { app, request } = await build({ timeoutMs: 100 })
    app.bind('db.manager', { check: () => new Promise(() => {}) })
    // The probe reads db.manager on each check.
    const r = await request({ url: '/health' })
    assert.equal(r.statusCode, 503)
  })

  it('an app that declares its own GET /health keeps it', async () => {
    const { request } = await build({ routes: [Route.get('/health', () => ({ mine: true })).withoutMiddleware('web')] })
    const r = await request({ url: '/health' })
    assert.deepEqual(JSON.parse(body(r)), { mine: true })
  })
})

describe('GET /metrics', () => {
  it('does not exist without METRICS_TOKEN: 404, no response hook, no metrics binding', async () => {
    const { app, request } = await build()
    const r = await request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
    assert.equal(r.statusCode, 404)
    assert.equal(app.has('http.response.hooks'), false)
    assert.equal(app.has('observability.metrics'), false)
  })

  it('refuses a missing or wrong token: 401 E_UNAUTHORIZED with WWW-Authenticate', async () => {
    const { request } = await build({ token: TOKEN })
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN]) {
      const r = await request({ url: '/metrics', headers: { authorization, accept: 'text/html' } })
      assert.equal(r.statusCode, 401, String(authorization))
      assert.equal(r.headers['www-authenticate'], 'Bearer realm="metrics"')
      const json = JSON.parse(body(r))
      assert.equal(json.code, 'E_UNAUTHORIZED')
      assert.equal(typeof json.message, 'string')
      assert.ok(!body(r).includes('trowel_'))
    }
  })

  it('serves the Prometheus text format, counting requests by route pattern', async () => {
    const secret = 'f'.repeat(48)
    const { request } = await build({
      token: TOKEN,
      routes: [Route.get('/change_password/@token', () => ({ ok: true })), Route.get('/', () => 'home')],
    })
    await request({ url: `/change_password/${secret}` })
    await request({ url: `/change_password/${secret}` })
    await request({ url: `/nowhere/${secret}` })
    const r = await request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
    assert.equal(r.statusCode, 200)
    assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
    assert.equal(r.headers['cache-control'], 'no-store')
    const text = body(r)
    assert.match(text, /^trowel_http_requests_total\{method="GET",route="\/change_password\/@token",status="200"\} 2$/m)
    assert.match(text, /^trowel_http_requests_total\{method="GET",route="\(unmatched\)",status="404"\} 1$/m)
    assert.ok(!text.includes(secret), 'the reset token reached the scrape')
    const again = body(await request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }))
    assert.match(again, /^trowel_http_requests_total\{method="GET",route="\/metrics",status="200"\} 1$/m, 'the scrape itself is counted once sent')
  })

  it("reads the hasher's queue at scrape time and its waits as they happen, when it reports them", async () => {
    const seen: number[] = []
    const hasher = { queueLength: 2, onWait: (ms: number) => void seen.push(ms) }
    const { request } = await build({ token: TOKEN, hasher })
    hasher.onWait(15)
    hasher.onWait(1500)
    assert.deepEqual(seen, [15, 1500], 'a listener the hasher already had is kept')
    const text = body(await request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }))
    assert.match(text, /^trowel_hash_queue_length 2$/m)
    assert.match(text, /^trowel_hash_wait_seconds_count 2$/m)
    assert.match(text, /^trowel_hash_wait_seconds_sum 1\.515$/m)
    assert.match(text, /^trowel_hash_wait_seconds_bucket\{le="0\.025"\} 1$/m)
  })

  it('a hasher that reports nothing: the queue gauge has no sample, and there is no wait histogram', async () => {
    const { request } = await build({ token: TOKEN, hasher: { verify: async () => false } })
    const text = body(await request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }))
    assert.match(text, /^# TYPE trowel_hash_queue_length gauge$/m)
    assert.doesNotMatch(text, /^trowel_hash_queue_length /m)
    assert.doesNotMatch(text, /trowel_hash_wait_seconds/)
  })

  it('two apps in one process keep their own counts', async () => {
    const a = await build({ token: TOKEN, routes: [Route.get('/a', () => 'a')] })
    const b = await build({ token: TOKEN, routes: [Route.get('/b', () => 'b')] })
    await a.request({ url: '/a' })
    const textB = body(await b.request({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }))
    assert.ok(!textB.includes('route="/a"'))
  })
})
