import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import knexFactory, { type Knex } from 'knex'
import { SqliteClient } from '../database/sqlite-client.js'
import { Container } from '../container/container.js'
import { CookieJar } from '../http/cookie-jar.js'
import { Request } from '../http/request.js'
import { Response } from '../http/response.js'
import { HttpContext } from '../http/context.js'
import { CsrfError } from '../http/errors.js'
import type { Application } from '../foundation/application.js'
import {
  Session,
  SessionMiddleware,
  VerifyCsrfTokenMiddleware,
  MemorySessionStore,
  DatabaseSessionStore,
  CookieSessionStore,
  csrfField,
  sessionsTableMigration,
  resolveSessionConfig,
  type SessionStore,
} from './index.js'

const APP_KEY = 'base64:' + Buffer.alloc(32, 7).toString('base64')

/** The parts of Application the session code uses. */
class FakeApp extends Container {
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

interface FakeRequest {
  method?: string
  path?: string
  body?: Record<string, unknown>
  headers?: Record<string, string>
  secure?: boolean
}

/** A cookie-keeping client that runs the web stack (session, CSRF) around a handler. */
class Browser {
  readonly cookies = new Map<string, string>()
  readonly jar = new CookieJar(APP_KEY)
  constructor(readonly app: FakeApp) {}

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

function memoryApp(extra: Record<string, unknown> = {}) {
  const store = new MemorySessionStore()
  return { store, app: new FakeApp({ driver: 'memory', ...extra }, store) }
}

describe('Session', () => {
  it('puts, gets, forgets and reports dirtiness', () => {
    const s = new Session('id')
    assert.equal(s.isDirty, false)
    assert.equal(s.get('missing', 'fallback'), 'fallback')
    s.put('a', 1)
    assert.equal(s.isDirty, true)
    assert.equal(s.get('a'), 1)
    assert.equal(s.has('a'), true)
    s.forget('a')
    assert.equal(s.has('a'), false)
    assert.deepEqual(s.all(), {})
  })

  it('flashInput drops passwords and CSRF fields and keeps only scalar values', () => {
    const s = new Session('id')
    s.flashInput({ name: 'Ann', email: 'a@b.co', password: 'x', password_confirmation: 'y', current_Password: 'z', _token: 't', __token: 't', obj: { a: 1 } })
    const next = new Session('id', s.toData())
    assert.equal(next.old('name'), 'Ann')
    assert.equal(next.old('email'), 'a@b.co')
    for (const key of ['password', 'password_confirmation', 'current_Password', '_token', '__token', 'obj']) {
      assert.equal(next.old(key, 'none'), 'none', key)
    }
  })

  it('token() creates a 32-byte base64url token once', () => {
    const s = new Session('id')
    const t = s.token()
    assert.match(t, /^[A-Za-z0-9_-]{43}$/)
    assert.equal(s.token(), t)
    assert.equal(Buffer.from(t, 'base64url').length, 32)
  })

  it('errors() is {} when nothing was flashed', () => {
    assert.deepEqual(new Session('id').errors(), {})
  })
})

describe('SessionMiddleware', () => {
  it('starts no session (no cookie) for a visitor who stores nothing', async () => {
    const { app, store } = memoryApp()
    const res = await new Browser(app).request({})
    assert.deepEqual(res.setCookies, [])
    assert.equal(store.size, 0)
  })

  it('keeps values across requests with a signed, HttpOnly, SameSite=Lax cookie', async () => {
    const { app } = memoryApp()
    const browser = new Browser(app)
    const first = await browser.request({}, (ctx) => ctx.session.put('n', 41))
    const header = first.setCookies[0]!
    assert.match(header, /^trowel_session=s\./)
    assert.match(header, /HttpOnly/i)
    assert.match(header, /SameSite=Lax/i)
    assert.doesNotMatch(header, /Secure/i)
    const second = await browser.request({}, (ctx) => ctx.session.get('n'))
    assert.equal(second.ctx.session.get('n'), 41)
    assert.equal(second.ctx.session.id, first.ctx.session.id)
  })

  it('marks the cookie Secure over HTTPS', async () => {
    const { app } = memoryApp()
    const res = await new Browser(app).request({ secure: true }, (ctx) => ctx.session.put('a', 1))
    assert.match(res.setCookies[0]!, /;\s*Secure/i)
  })

  it('ignores a tampered cookie: fresh session with a new id', async () => {
    const { app } = memoryApp()
    const browser = new Browser(app)
    const first = await browser.request({}, (ctx) => ctx.session.put('user', 1))
    const good = browser.cookies.get('trowel_session')!
    browser.cookies.set('trowel_session', good.slice(0, -2) + (good.endsWith('AA') ? 'BB' : 'AA'))
    const second = await browser.request({}, (ctx) => ctx.session.put('x', 1))
    assert.equal(second.ctx.session.get('user'), undefined)
    assert.notEqual(second.ctx.session.id, first.ctx.session.id)
  })

  it('never adopts a client-chosen id, even when correctly signed but unknown to the store', async () => {
    const { app } = memoryApp()
    const browser = new Browser(app)
    const chosen = 'A'.repeat(43)
    browser.cookies.set('trowel_session', browser.jar.pack('trowel_session', chosen))
    const res = await browser.request({}, (ctx) => ctx.session.put('x', 1))
    assert.notEqual(res.ctx.session.id, chosen)
  })

  it('ignores a session cookie signed for another cookie name or another key', async () => {
    const { app } = memoryApp()
    const browser = new Browser(app)
    const first = await browser.request({}, (ctx) => ctx.session.put('user', 1))
    const id = first.ctx.session.id
    for (const forged of [browser.jar.pack('other_cookie', id), new CookieJar('another-key-entirely-0123456789ab').pack('trowel_session', id), id]) {
      browser.cookies.set('trowel_session', forged)
      const res = await browser.request({}, (ctx) => ctx.session.get('user'))
      assert.equal(res.ctx.session.get('user'), undefined)
      assert.notEqual(res.ctx.session.id, id)
    }
  })

  it('regenerate() changes the id and CSRF token, keeps data, and destroys the old id in the store', async () => {
    const { app, store } = memoryApp()
    const browser = new Browser(app)
    const first = await browser.request({}, (ctx) => {
      ctx.session.put('cart', [1])
      ctx.session.token()
    })
    const oldId = first.ctx.session.id
    const oldToken = first.ctx.session.currentToken()
    assert.ok(await store.read(oldId))
    const second = await browser.request({}, (ctx) => ctx.session.regenerate())
    const s = second.ctx.session as Session
    assert.notEqual(s.id, oldId)
    assert.notEqual(s.currentToken(), oldToken)
    assert.deepEqual(s.get('cart'), [1])
    assert.equal(await store.read(oldId), null)
    assert.ok(await store.read(s.id))
    // The client now holds the new id.
    const third = await browser.request({}, (ctx) => ctx.session.get('cart'))
    assert.equal(third.ctx.session.id, s.id)
  })

  it('invalidate() clears data, moves to a new id and destroys the old one', async () => {
    const { app, store } = memoryApp()
    const browser = new Browser(app)
    const first = await browser.request({}, (ctx) => ctx.session.put('user', 7))
    const second = await browser.request({}, (ctx) => ctx.session.invalidate())
    assert.notEqual(second.ctx.session.id, first.ctx.session.id)
    assert.equal(await store.read(first.ctx.session.id), null)
    const third = await browser.request({}, (ctx) => ctx.session.get('user'))
    assert.equal(third.ctx.session.get('user'), undefined)
  })

  it('flash data lives for exactly the next request', async () => {
    const { app } = memoryApp()
    const browser = new Browser(app)
    await browser.request({}, (ctx) => {
      ctx.session.flash('success', 'Saved.')
      assert.equal(ctx.session.getFlash('success'), undefined, 'not readable in the same request')
    })
    const next = await browser.request({})
    assert.equal(next.ctx.session.getFlash('success'), 'Saved.')
    const after = await browser.request({})
    assert.equal(after.ctx.session.getFlash('success'), undefined)
  })

  it('a HEAD request does not use up flash data', async () => {
    const { app } = memoryApp()
    const browser = new Browser(app)
    await browser.request({}, (ctx) => ctx.session.flash('status', 'Saved.'))
    await browser.request({ method: 'HEAD' })
    await browser.request({ method: 'HEAD' })
    const page = await browser.request({})
    assert.equal(page.ctx.session.getFlash('status'), 'Saved.')
    assert.equal((await browser.request({})).ctx.session.getFlash('status'), undefined, 'the page used it up')
  })

  it('reflash() keeps flash data one more request', async () => {
    const { app } = memoryApp()
    const browser = new Browser(app)
    await browser.request({}, (ctx) => ctx.session.flash('status', 'hi'))
    await browser.request({}, (ctx) => ctx.session.reflash())
    const third = await browser.request({})
    assert.equal(third.ctx.session.getFlash('status'), 'hi')
    const fourth = await browser.request({})
    assert.equal(fourth.ctx.session.getFlash('status'), undefined)
  })

  it('old input and errors reach the next request without passwords', async () => {
    const { app } = memoryApp()
    const browser = new Browser(app)
    await browser.request({}, (ctx) => {
      ctx.session.flashInput({ email: 'a@b.co', password: 'secret-pass', password_confirmation: 'secret-pass' })
      ctx.session.flashErrors({ email: ['The email has already been taken.'] })
    })
    const next = await browser.request({})
    assert.equal(next.ctx.session.old('email'), 'a@b.co')
    assert.equal(next.ctx.session.old('password', null), null)
    assert.equal(next.ctx.session.old('password_confirmation', null), null)
    assert.deepEqual(next.ctx.session.errors(), { email: ['The email has already been taken.'] })
    const third = await browser.request({})
    assert.deepEqual(third.ctx.session.errors(), {})
  })

  it('expires an idle session (lifetime) and an old one (absolute_lifetime) with a fresh id', async () => {
    for (const data of [
      { createdAt: Date.now() - 10 * 60_000, lastActivity: Date.now() - 3 * 60_000 },
      { createdAt: Date.now() - 30 * 60_000, lastActivity: Date.now() - 1_000 },
    ]) {
      const { app, store } = memoryApp({ lifetime: 2, absolute_lifetime: 20 })
      const browser = new Browser(app)
      const id = 'B'.repeat(43)
      await store.write(id, { values: { user: 1 }, flash: {}, csrfToken: null, ...data }, 3600)
      browser.cookies.set('trowel_session', browser.jar.pack('trowel_session', id))
      const res = await browser.request({}, (ctx) => ctx.session.get('user'))
      assert.equal(res.ctx.session.get('user'), undefined)
      assert.notEqual(res.ctx.session.id, id)
      assert.equal(await store.read(id), null)
    }
  })

  it('the cookie driver keeps the whole session in one encrypted cookie', async () => {
    const app = new FakeApp({ driver: 'cookie' })
    const browser = new Browser(app)
    const first = await browser.request({}, (ctx) => ctx.session.put('secret', 'value-1'))
    const cookie = browser.cookies.get('trowel_session')!
    assert.match(cookie, /^e\./)
    assert.doesNotMatch(Buffer.from(cookie.slice(2), 'base64url').toString('latin1'), /value-1/)
    const second = await browser.request({}, (ctx) => ctx.session.get('secret'))
    assert.equal(second.ctx.session.get('secret'), 'value-1')
    assert.equal(second.ctx.session.id, first.ctx.session.id)
    // Tampering with the ciphertext gives a fresh session.
    browser.cookies.set('trowel_session', cookie.slice(0, 10) + (cookie[10] === 'A' ? 'B' : 'A') + cookie.slice(11))
    const third = await browser.request({}, (ctx) => ctx.session.put('x', 1))
    assert.equal(third.ctx.session.get('secret'), undefined)
    assert.notEqual(third.ctx.session.id, first.ctx.session.id)
  })

  it('the cookie driver refuses a session over 4 KB, dropping old input first', async () => {
    const app = new FakeApp({ driver: 'cookie' })
    const browser = new Browser(app)
    const res = await browser.request({}, (ctx) => {
      ctx.session.put('ok', 1)
      ctx.session.flashInput({ bio: 'x'.repeat(5000) })
    })
    assert.equal(res.error, undefined)
    assert.ok(app.logs.some((l) => l.event === 'session.old_input_dropped'))
    const res2 = await browser.request({}, (ctx) => ctx.session.put('big', 'y'.repeat(5000)))
    assert.equal((res2.error as { code?: string }).code, 'E_SESSION_TOO_LARGE')
  })

  it('rejects an unknown driver with a message naming config/session.ts', () => {
    assert.throws(() => resolveSessionConfig(new FakeApp({ driver: 'files' }) as unknown as Application), /config\/session\.ts: SESSION\.driver/)
  })
})

describe('VerifyCsrfTokenMiddleware', () => {
  async function withToken() {
    const { app } = memoryApp()
    const browser = new Browser(app)
    const first = await browser.request({}, (ctx) => ctx.session.token())
    return { browser, token: first.ctx.session.currentToken() as string }
  }

  it('accepts the token in __token, _token and X-CSRF-TOKEN', async () => {
    const { browser, token } = await withToken()
    const requests: FakeRequest[] = [
      { method: 'POST', body: { __token: token } },
      { method: 'PUT', body: { _token: token } },
      { method: 'DELETE', headers: { 'X-CSRF-TOKEN': token } },
      { method: 'PATCH', body: {}, headers: { 'x-csrf-token': token } },
    ]
    for (const req of requests) {
      const res = await browser.request(req)
      assert.equal(res.error, undefined, JSON.stringify(req))
      assert.equal(res.handlerRan, true)
    }
  })

  it('throws CsrfError (419 E_CSRF) before the handler when the token is missing or wrong', async () => {
    const { browser, token } = await withToken()
    for (const req of [
      { method: 'POST', body: {} },
      { method: 'POST', body: { __token: token + 'x' } },
      { method: 'POST', body: { __token: [token] } },
      { method: 'POST', body: { __token: '' } },
      { method: 'DELETE', headers: { 'X-CSRF-TOKEN': 'nope' } },
    ]) {
      let ran = false
      const res = await browser.request(req, () => (ran = true))
      assert.ok(res.error instanceof CsrfError, JSON.stringify(req))
      assert.equal((res.error as CsrfError).status, 419)
      assert.equal((res.error as CsrfError).code, 'E_CSRF')
      assert.equal(ran, false)
    }
  })

  it('refuses a POST from a visitor with no session token at all', async () => {
    const { app } = memoryApp()
    const res = await new Browser(app).request({ method: 'POST', body: { __token: 'anything' } })
    assert.ok(res.error instanceof CsrfError)
  })

  it('refuses the pre-regeneration token after regenerate()', async () => {
    const { browser, token } = await withToken()
    await browser.request({}, (ctx) => ctx.session.regenerate())
    const res = await browser.request({ method: 'POST', body: { __token: token } })
    assert.ok(res.error instanceof CsrfError)
  })

  it('lets GET/HEAD/OPTIONS through and honours ctx.state.csrfExempt', async () => {
    const { app } = memoryApp()
    const browser = new Browser(app)
    for (const method of ['GET', 'HEAD', 'OPTIONS']) assert.equal((await browser.request({ method })).error, undefined)
    const exempt = new HttpContextProbe(app)
    await exempt.check()
  })

  it('csrfField renders the hidden __token input', () => {
    const s = new Session('id')
    assert.equal(csrfField(s), `<input type="hidden" name="__token" value="${s.token()}">`)
  })
})

/** Runs the CSRF middleware alone on a POST whose context is marked exempt. */
class HttpContextProbe {
  constructor(readonly app: FakeApp) {}
  async check() {
    const jar = new CookieJar(APP_KEY)
    const raw = { method: 'POST', url: '/api/auth', headers: {}, socket: {} } as unknown as IncomingMessage
    const app = this.app as unknown as Application
    const ctx = new HttpContext(app, new Request(raw, { trustProxy: 0, cookies: jar }), new Response({ cookies: jar, secure: false, urlFor: () => '/' }), null)
    ctx.session = new Session('id')
    assert.throws(() => new VerifyCsrfTokenMiddleware(app).before(ctx), CsrfError)
    ctx.state.csrfExempt = true
    assert.equal(new VerifyCsrfTokenMiddleware(app).before(ctx), undefined)
  }
}

describe('DatabaseSessionStore', () => {
  let db: Knex
  before(async () => {
    db = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    await sessionsTableMigration(db.schema)
  })
  after(() => db.destroy())

  it('writes, reads, updates, expires and destroys rows', async () => {
    const store = new DatabaseSessionStore(db, { pruneProbability: 0 })
    const data = { values: { a: 1 }, flash: {}, csrfToken: 't', createdAt: Date.now(), lastActivity: Date.now() }
    await store.write('id-1', data, 60)
    assert.deepEqual(await store.read('id-1'), data)
    await store.write('id-1', { ...data, values: { a: 2 } }, 60)
    assert.deepEqual((await store.read('id-1'))?.values, { a: 2 })
    assert.equal((await db('sessions').count({ n: '*' }))[0]!.n, 1)
    await store.destroy('id-1')
    assert.equal(await store.read('id-1'), null)
    await db('sessions').insert({ id: 'old', payload: JSON.stringify(data), last_activity: 0, expires_at: Date.now() - 1 })
    assert.equal(await store.read('old'), null)
    assert.equal(await store.read('never'), null)
  })

  it('serves the middleware (driver "database") through the container\'s knex', async () => {
    const app = new FakeApp({ driver: 'database' })
    app.bind('db', db)
    const browser = new Browser(app)
    const first = await browser.request({}, (ctx) => ctx.session.put('k', 'v'))
    const row = await db('sessions').where('id', first.ctx.session.id).first()
    assert.ok(row)
    const second = await browser.request({})
    assert.equal(second.ctx.session.get('k'), 'v')
  })
})

describe('DatabaseSessionStore without a sessions table', () => {
  it('creates the table on first use', async () => {
    const fresh = knexFactory({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    try {
      const store = new DatabaseSessionStore(() => fresh)
      assert.equal(await store.read('nope'), null)
      assert.equal(await fresh.schema.hasTable('sessions'), true)
      await assert.rejects(new DatabaseSessionStore(fresh, { table: 'other', autoCreate: false }).read('x'), /no such table/)
    } finally {
      await fresh.destroy()
    }
  })
})

describe('CookieSessionStore', () => {
  it('cannot be used without a request', async () => {
    await assert.rejects(new CookieSessionStore().read(), /bind/)
  })
})
