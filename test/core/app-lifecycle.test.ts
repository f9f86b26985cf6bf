/**
 * Black-box: a new app from `craft new`, its generators and commands, and HTTP basics.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { newApp, runNode, CRAFT_BIN, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'

describe('craft new', () => {
  let app: TestApp
  before(async () => {
    app = await newApp()
  })
  after(() => app.cleanup())

  it('writes the app of SPEC section 2', () => {
    for (const file of [
      'craft', '.env', 'Kernel.ts', 'config/providers.ts', 'config/auth.ts', 'config/database.ts', 'config/mail.ts',
      'config/session.ts', 'config/application.ts', 'app/controllers/WelcomeController.ts', 'app/models/User.ts',
      'routes/web.ts', 'templates/welcome.html', 'storage',
    ]) assert.ok(app.exists(file), file)
    assert.match(app.read('Kernel.ts'), /routeMiddleware = \{/)
    assert.match(app.read('Kernel.ts'), /this\.application\.bind\('routes\.location', 'routes\/web'\)/)
    assert.match(app.read('.env'), /^APP_KEY=base64:[A-Za-z0-9+/=]{44}$/m)
    assert.match(app.read('.env'), /^DB_CONNECTION=sqlite$/m)
    assert.match(app.read('.env'), /^MAIL_DRIVER=terminal$/m)
    assert.match(app.read('config/auth.ts'), /password_reset_expiration: 1440/)
    assert.match(app.read('app/models/User.ts'), /class User extends Authenticates\(Model\)/)
    assert.ok(lstatSync(join(app.dir, 'node_modules/trowel')).isSymbolicLink())
  })

  it('ships migrations for users and password_resets', () => {
    const list = app.craft('migrate:status')
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, /create_users_table/)
    assert.match(list.stdout, /create_password_resets_table/)
    assert.match(list.stdout, /Pending/)
  })

  it('refuses a non-empty folder', () => {
    const again = runNode([CRAFT_BIN, 'new', app.dir])
    assert.notEqual(again.code, 0)
    assert.match(again.stderr, /not empty/)
    assert.equal(again.stderr.trim().split('\n').length, 1)
  })

  it('unknown commands and options fail with one line, no stack', () => {
    const unknown = app.craft('frobnicate')
    assert.notEqual(unknown.code, 0)
    assert.equal(unknown.stderr.trim().split('\n').length, 1, unknown.stderr)
    assert.doesNotMatch(unknown.stderr, /at .*\.js:\d+/)
    const badOption = app.craft('serve', '--bogus')
    assert.notEqual(badOption.code, 0)
    assert.equal(badOption.stderr.trim().split('\n').length, 1, badOption.stderr)
    const badPort = app.craft('serve', '--port', 'abc')
    assert.notEqual(badPort.code, 0)
    assert.match(badPort.stderr, /--port/)
  })

  it('--help lists every command', () => {
    const help = app.craft('--help')
    assert.equal(help.code, 0)
    for (const cmd of ['new', 'serve', 'auth', 'api:install', 'migration', 'migrate', 'migrate:rollback', 'migrate:status', 'migrate:refresh', 'controller', 'routes:list', 'key:generate']) {
      assert.match(help.stdout, new RegExp(`\\b${cmd}\\b`), cmd)
    }
  })

  it('controller and controller -a generate files and refuse to overwrite without --force', () => {
    const plain = app.craft('controller', 'PagesController')
    assert.equal(plain.code, 0, plain.stderr)
    assert.match(plain.stdout, /app\/controllers\/PagesController\.ts/)
    const again = app.craft('controller', 'PagesController')
    assert.notEqual(again.code, 0)
    assert.match(again.stderr, /--force/)
    const forced = app.craft('controller', 'PagesController', '--force')
    assert.equal(forced.code, 0)
    const resource = app.craft('controller', 'PostsController', '-a')
    assert.equal(resource.code, 0)
    const text = app.read('app/controllers/PostsController.ts')
    for (const m of ['index', 'show', 'store', 'update', 'destroy']) assert.match(text, new RegExp(`async ${m}\\(`))
  })

  it('migration writes a dated file altering or creating a table', () => {
    const r = app.craft('migration', 'add_bio_users', '--table', 'users')
    assert.equal(r.code, 0, r.stderr)
    const m = /databases\/migrations\/(\d{4}_\d{2}_\d{2}_\d{6}_add_bio_users\.ts)/.exec(r.stdout)
    assert.ok(m, r.stdout)
    // Made in the same second as craft new's migrations, it still sorts (and so runs) after them.
    assert.equal(readdirSync(join(app.dir, 'databases/migrations')).sort().at(-1), m[1])
    const text = app.read(`databases/migrations/${m[1]}`)
    assert.match(text, /export default class AddBioUsers extends Migration/)
    assert.match(text, /this\.schema\.table\('users'/)
    const c = app.craft('migration', 'create_posts_table', '--create', 'posts')
    assert.equal(c.code, 0)
    assert.ok(/createTable\('posts'/.test(app.read(`databases/migrations/${/(\S+_create_posts_table\.ts)/.exec(c.stdout)![1]!.split('/').pop()}`)))
  })

  it('key:generate replaces APP_KEY', () => {
    const before = /APP_KEY=(.*)/.exec(app.read('.env'))![1]
    const r = app.craft('key:generate')
    assert.equal(r.code, 0, r.stderr)
    const after = /APP_KEY=(.*)/.exec(app.read('.env'))![1]
    assert.notEqual(before, after)
    assert.doesNotMatch(r.stdout, new RegExp(after!.replace(/[+/=]/g, '.')))
  })
})

describe('serving a new app', () => {
  let app: TestApp
  let server: Server
  let client: Client
  before(async () => {
    app = await newApp()
    assert.equal(app.craft('migrate').code, 0)
    app.write(
      'routes/web.ts',
      `import { Route } from 'trowel'
import { ProbeMiddleware } from '../app/ProbeMiddleware.js'

export const ROUTES = [
  Route.get('/', 'WelcomeController@show').name('welcome'),
  Route.get('/users/@id:int', ({ params }) => ({ id: params.id })).name('users.show'),
  Route.get('/opt/?slug', ({ params }) => ({ slug: params.slug ?? null })),
  Route.match(['GET', 'POST'], '/both', ({ request }) => ({ method: request.method })),
  Route.get('/url', () => ({ url: route('users.show', { id: 9 }) })),
  Route.get('/probe', ({ response }) => response.json({ order: (globalThis as any).__order })).middleware(['probe:a,b']),
  Route.group([Route.get('/halt', () => 'handler ran')], { middleware: 'probe:halt' }),
  Route.group([Route.get('/ping', () => 'pong').name('ping')], { prefix: '/admin', name: 'admin.' }),
  Route.get('/boom', () => { throw new Error('secret detail') }),
  Route.get('/sub', 'admin.DashboardController@show'),
  Route.post('/echo', ({ request }) => ({ body: request.all() })).withoutMiddleware('web'),
  Route.get('/destructure', ({ request, session, params }) => ({ path: request.path, params, session: typeof session })).withoutMiddleware('web'),
  Route.get('/use-session', ({ session }) => ({ value: session.get('x') })).withoutMiddleware('web'),
]
import { route } from 'trowel'
`,
    )
    app.write(
      'app/ProbeMiddleware.ts',
      `import { Middleware, type HttpContext } from 'trowel'
export class ProbeMiddleware extends Middleware {
  before(ctx: HttpContext, ...args: string[]) {
    if (args[0] === 'halt') return ctx.response.json({ halted: true }, 403)
    ;(globalThis as any).__order = ['before:' + args.join('+')]
    return ctx.request // Masonite's "return request": go on
  }
  after(ctx: HttpContext) { ctx.response.header('X-Probe', 'after-ran'); return ctx }
}
`,
    )
    app.edit('Kernel.ts', (t) => `import { ProbeMiddleware } from './app/ProbeMiddleware.js'\n` + t.replace('routeMiddleware = {', 'routeMiddleware = {\n    probe: [ProbeMiddleware],'))
    assert.equal(app.craft('controller', 'admin/DashboardController').code, 0)
    app.edit('app/controllers/admin/DashboardController.ts', (t) => t.replace("return view.render('welcome')", "return 'dashboard'"))
    // A production-like server: the generated .env's APP_DEBUG=true would add stacks to 500s.
    server = await app.serve({ APP_DEBUG: 'false' })
    client = new Client(server.url)
  })
  after(() => app.cleanup())

  it('serves the welcome page with security headers', async () => {
    const r = await client.get('/')
    assert.equal(r.status, 200)
    assert.match(r.text, /Welcome to Trowel/)
    assert.match(r.text, /node craft auth/, 'without auth routes the page says how to add them')
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff')
    assert.equal(r.headers.get('x-frame-options'), 'DENY')
    assert.equal(r.headers.get('referrer-policy'), 'strict-origin-when-cross-origin')
  })

  it('path parameters: @id:int, optional ?slug', async () => {
    assert.deepEqual((await client.get('/users/12')).json(), { id: '12' })
    assert.equal((await client.get('/users/abc')).status, 404)
    assert.deepEqual((await client.get('/opt')).json(), { slug: null })
    assert.deepEqual((await client.get('/opt/x')).json(), { slug: 'x' })
  })

  it('Route.match, route(), groups, subfolder controllers', async () => {
    assert.deepEqual((await client.get('/both')).json(), { method: 'GET' })
    assert.deepEqual((await client.get('/url')).json(), { url: '/users/9' })
    assert.equal((await client.get('/admin/ping')).text, 'pong')
    assert.equal((await client.get('/sub')).text, 'dashboard')
  })

  it('middleware gets its arguments; after runs', async () => {
    const r = await client.get('/probe')
    assert.deepEqual(r.json(), { order: ['before:a+b'] })
    assert.equal(r.headers.get('x-probe'), 'after-ran')
    const halted = await client.get('/halt')
    assert.equal(halted.status, 403)
    assert.deepEqual(halted.json(), { halted: true })
  })

  it('404 and 405 with Allow, HTML or JSON by Accept', async () => {
    const html = await client.get('/missing')
    assert.equal(html.status, 404)
    assert.match(html.headers.get('content-type')!, /text\/html/)
    assert.match(html.text, /<title>404 Not Found<\/title>/)
    assert.match(html.text, /<h1>Not Found<\/h1>/)
    const json = await client.get('/missing', { accept: 'application/json' })
    assert.equal(json.status, 404)
    assert.deepEqual(json.json(), { message: 'Not found.', code: 'E_NOT_FOUND' })
    const wrong = await client.request('DELETE', '/both', { headers: { accept: 'application/json' } })
    assert.equal(wrong.status, 405)
    assert.match(wrong.headers.get('allow')!, /GET/)
    assert.match(wrong.headers.get('allow')!, /POST/)
  })

  it('a handler outside the web stack may destructure session; using it is a 500', async () => {
    const ok = await client.get('/destructure', { accept: 'application/json' })
    assert.equal(ok.status, 200, ok.text)
    assert.deepEqual(ok.json(), { path: '/destructure', params: {}, session: 'object' })
    const used = await client.get('/use-session', { accept: 'application/json' })
    assert.equal(used.status, 500)
    // The log line travels through the server's stdout pipe: wait for it.
    for (let i = 0; i < 200 && !/No session on GET \/use-session/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 50))
    assert.match(server.output(), /No session on GET \/use-session/)
  })

  it('500 without details; the process survives', async () => {
    const r = await client.get('/boom', { accept: 'application/json' })
    assert.equal(r.status, 500)
    assert.deepEqual(r.json(), { message: 'Internal server error.', code: 'E_INTERNAL' })
    assert.doesNotMatch(r.text, /secret detail/)
    assert.equal((await client.get('/')).status, 200)
  })

  it('bodies: JSON, form, malformed (400), too large (413), unsupported (415)', async () => {
    assert.deepEqual((await client.postJson('/echo', { a: 1 })).json(), { body: { a: 1 } })
    assert.deepEqual((await client.post('/echo', { a: '1' })).json(), { body: { a: '1' } })
    const bad = await client.request('POST', '/echo', { body: '{"a":', headers: { 'content-type': 'application/json' } })
    assert.equal(bad.status, 400)
    assert.equal(bad.json().code, 'E_BAD_REQUEST')
    const big = await client.request('POST', '/echo', { body: JSON.stringify({ a: 'x'.repeat(1024 * 1024 + 10) }), headers: { 'content-type': 'application/json' } })
    assert.equal(big.status, 413)
    assert.equal(big.json().code, 'E_PAYLOAD_TOO_LARGE')
    const xml = await client.request('POST', '/echo', { body: '<a/>', headers: { 'content-type': 'application/xml' } })
    assert.equal(xml.status, 415)
  })

  it('routes:list prints method, path, name, handler, middleware', () => {
    const r = app.craft('routes:list')
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /GET\s+\/users\/@id:int\s+users\.show/)
    assert.match(r.stdout, /GET\s+\/admin\/ping\s+admin\.ping/)
    assert.match(r.stdout, /WelcomeController@show\s+web/)
  })

  it('stops gracefully on SIGTERM', async () => {
    const code = await server.stop('SIGTERM')
    assert.equal(code, 0)
  })
})

void existsSync

describe('a database that is down at startup', () => {
  it('stops `serve` with one line naming the connection, no stack', async () => {
    const app = await newApp()
    try {
      const r = runNode(['craft', 'serve', '--port', '0'], { cwd: app.dir, env: { DB_CONNECTION: 'postgres', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' } })
      assert.notEqual(r.code, 0)
      const lines = r.stderr.trim().split('\n')
      assert.equal(lines.length, 1, r.stderr)
      assert.match(lines[0]!, /postgres/)
      assert.match(lines[0]!, /127\.0\.0\.1:1/)
      const m = runNode(['craft', 'migrate'], { cwd: app.dir, env: { DB_CONNECTION: 'postgres', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' } })
      assert.notEqual(m.code, 0)
      assert.equal(m.stderr.trim().split('\n').length, 1, m.stderr)
    } finally {
      await app.cleanup()
    }
  })
})

describe('APP_KEY', () => {
  it('a missing or short APP_KEY stops `serve` with a line saying to run key:generate', async () => {
    const app = await newApp()
    try {
      for (const value of ['', 'too-short']) {
        app.edit('.env', (t) => t.replace(/^APP_KEY=.*$/m, `APP_KEY=${value}`))
        const r = runNode(['craft', 'serve', '--port', '0'], { cwd: app.dir, env: app.env })
        assert.notEqual(r.code, 0)
        assert.match(r.stderr, /APP_KEY/)
        assert.match(r.stderr, /node craft key:generate/)
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
      }
    } finally {
      await app.cleanup()
    }
  })
})
