/**
 * Black-box: the JWT API in a generated app wired exactly by the seed's steps 4–12.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps, setJwtConfig } from '../helpers/seed-steps.js'

const PASSWORD = 'correct horse battery staple'
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url')
const decode = (token: string) => token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()))

function sign(header: object, payload: object, secret: string, alg = 'sha512'): string {
  const data = `${b64(header)}.${b64(payload)}`
  return `${data}.${createHmac(alg, secret).update(data).digest('base64url')}`
}

async function registerUser(base: string, email: string): Promise<void> {
  const c = new Client(base)
  const r = await c.submit('/register', '/register', { name: 'Api User', email, password: PASSWORD, password_confirmation: PASSWORD })
  assert.equal(r.location, '/home', 'registration failed')
}

async function getToken(base: string, email: string): Promise<string> {
  const r = await new Client(base).postJson('/api/auth', { username: email, password: PASSWORD })
  assert.equal(r.status, 200, r.text)
  return r.json().data
}

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })),
  Route.get('/guarded', ({ auth }) => ({ user: auth.user() ? auth.user().email : null })).middleware(['guard:jwt']),
  Route.api('posts', 'PostsController'),
]
`

describe('JWT API (seed steps 4–12)', () => {
  let app: TestApp
  let server: Server
  let secret: string

  async function restart(config: Record<string, string>) {
    await server.stop()
    setJwtConfig(app, config)
    server = await app.serve()
  }

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app, { apiRoutes: API_ROUTES })
    assert.equal(app.craft('controller', 'PostsController', '-a').code, 0)
    migrate(app)
    secret = /^JWT_SECRET=(.+)$/m.exec(app.read('.env'))![1]!
    server = await app.serve()
    await registerUser(server.url, 'api@example.test')
    await registerUser(server.url, 'other@example.test')
  })
  after(() => app.cleanup())

  it('api:install wrote config/api.ts and a 64-byte secret it did not print', () => {
    assert.match(app.read('config/api.ts'), /algorithm: 'HS512', secret: env\('JWT_SECRET'\), model: User, expires: null, authenticates: false, version: null/)
    assert.equal(Buffer.from(secret, 'base64url').length, 64)
    const again = app.craft('api:install')
    assert.notEqual(again.code, 0)
    const forced = app.craft('api:install', '--force')
    assert.equal(forced.code, 0, forced.stderr)
    assert.equal(/^JWT_SECRET=(.+)$/m.exec(app.read('.env'))![1], secret, 'the secret was kept')
    assert.doesNotMatch(forced.stdout + forced.stderr, new RegExp(secret.slice(0, 20)))
    // config/api.ts kept without --force, but a missing secret is still added.
    const withSecret = app.read('.env')
    try {
      app.edit('.env', (t) => t.replace(/^JWT_SECRET=.*\n?/m, ''))
      const refill = app.craft('api:install')
      assert.notEqual(refill.code, 0)
      assert.match(refill.stderr, /config\/api\.ts already exists; use --force/)
      const added = /^JWT_SECRET=(.+)$/m.exec(app.read('.env'))?.[1]
      assert.equal(Buffer.from(added ?? '', 'base64url').length, 64)
    } finally {
      app.write('.env', withSecret)
    }
  })

  it('POST /api/auth issues an HS512 JWT with sub, iat, jti, version', async () => {
    const token = await getToken(server.url, 'api@example.test')
    const [header, payload] = decode(token)
    assert.deepEqual(header, { alg: 'HS512', typ: 'JWT' })
    assert.equal(typeof payload.sub, 'string')
    assert.equal(typeof payload.iat, 'number')
    assert.equal(typeof payload.jti, 'string')
    assert.equal(payload.version, null)
    assert.equal('exp' in payload, false)
  })

  it('accepts a form body too; wrong credentials get the exact 401', async () => {
    const form = await new Client(server.url).post('/api/auth', { username: 'api@example.test', password: PASSWORD })
    assert.equal(form.status, 200)
    const bad = await new Client(server.url).postJson('/api/auth', { username: 'api@example.test', password: 'nope nope nope' })
    assert.equal(bad.status, 401)
    assert.deepEqual(bad.json(), { message: 'Could not find username or password', code: 'E_INVALID_CREDENTIALS' })
    const unknown = await new Client(server.url).postJson('/api/auth', { username: 'ghost@example.test', password: 'nope nope nope' })
    assert.equal(unknown.status, 401)
    assert.equal(unknown.text, bad.text)
    assert.equal(bad.setCookies.length, 0, 'token routes set no cookie')
    // A browser's FormData (multipart/form-data) is a form body too.
    const multipart = new FormData()
    multipart.append('username', 'api@example.test')
    multipart.append('password', PASSWORD)
    const fromFormData = await new Client(server.url).request('POST', '/api/auth', { multipart })
    assert.equal(fromFormData.status, 200, fromFormData.text)
    assert.equal(typeof fromFormData.json().data, 'string')
  })

  it('an api route decides on the token before the body: 401 without one, 400/415 with one', async () => {
    const token = await getToken(server.url, 'api@example.test')
    const c = new Client(server.url)
    const bodies = [
      { body: '{"title": ', headers: { 'content-type': 'application/json' }, status: 400 },
      { body: 'hello', headers: { 'content-type': 'text/plain' }, status: 415 },
    ]
    for (const { body, headers, status } of bodies) {
      const anonymous = await c.request('POST', '/api/posts', { body, headers })
      assert.equal(anonymous.status, 401, headers['content-type'])
      assert.equal(anonymous.json().code, 'E_TOKEN_MISSING')
      const signed = await c.request('POST', '/api/posts', { body, headers: { ...headers, authorization: `Bearer ${token}` } })
      assert.equal(signed.status, status, signed.text)
    }
  })

  it('protects api routes; LoadUserMiddleware sets request.user() without hidden fields', async () => {
    const token = await getToken(server.url, 'api@example.test')
    const client = new Client(server.url)
    const me = await client.get('/api/me', { authorization: `Bearer ${token}` })
    assert.equal(me.status, 200, me.text)
    assert.equal(me.json().data.email, 'api@example.test')
    assert.equal('password' in me.json().data, false)
    assert.equal('api_token' in me.json().data, false)
    const lower = await client.get('/api/me', { authorization: `bearer ${token}` })
    assert.equal(lower.status, 200)
  })

  it('missing and invalid tokens: exact 401 bodies with WWW-Authenticate: Bearer', async () => {
    const client = new Client(server.url)
    const missing = await client.get('/api/me')
    assert.equal(missing.status, 401)
    assert.deepEqual(missing.json(), { message: 'Authentication token missing', code: 'E_TOKEN_MISSING' })
    assert.match(missing.headers.get('www-authenticate')!, /^Bearer/)
    const invalid = await client.get('/api/me', { authorization: 'Bearer abc.def.ghi' })
    assert.equal(invalid.status, 401)
    assert.deepEqual(invalid.json(), { message: 'Token invalid. Try reauthenticating.', code: 'E_TOKEN_INVALID' })
    assert.match(invalid.headers.get('www-authenticate')!, /^Bearer/)
  })

  it('an unknown path under /api is a JSON 404 with or without a token', async () => {
    const token = await getToken(server.url, 'api@example.test')
    for (const headers of [{}, { authorization: `Bearer ${token}` }] as Record<string, string>[]) {
      const r = await new Client(server.url).get('/api/nothing-here', headers)
      assert.equal(r.status, 404)
      assert.equal(r.json().code, 'E_NOT_FOUND')
    }
  })

  it('forged tokens are refused', async () => {
    const token = await getToken(server.url, 'api@example.test')
    const [, payload] = decode(token)
    const forged = [
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`,
      `${b64({ alg: 'NoNe', typ: 'JWT' })}.${b64(payload)}.`,
      sign({ alg: 'HS256', typ: 'JWT' }, payload, secret, 'sha256'),
      sign({ alg: 'HS512', typ: 'JWT' }, payload, 'a-completely-different-secret-of-enough-length'),
      sign({ alg: 'HS512', typ: 'JWT' }, { ...payload, sub: '2' }, 'wrong'),
      token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA'),
      token.split('.').slice(0, 2).join('.'),
      token + '.extra',
      sign({ alg: 'HS512', typ: 'JWT' }, { ...payload, iat: Math.floor(Date.now() / 1000) + 3600 }, secret),
      sign({ alg: 'HS512', typ: 'JWT' }, { ...payload, version: 3 }, secret),
    ]
    for (const f of forged) {
      const r = await new Client(server.url).get('/api/me', { authorization: `Bearer ${f}` })
      assert.equal(r.status, 401, `accepted: ${f}`)
    }
    const genuine = sign({ alg: 'HS512', typ: 'JWT' }, payload, secret)
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${genuine}` })).status, 200, 'the same claims signed right are accepted')
    const query = await new Client(server.url).get(`/api/me?token=${token}`)
    assert.equal(query.status, 401)
    assert.equal(query.json().code, 'E_TOKEN_MISSING')
  })

  it('reauth: a new token; the old one can never be reauthed again', async () => {
    const token = await getToken(server.url, 'api@example.test')
    const r = await new Client(server.url).postJson('/api/reauth', { token })
    assert.equal(r.status, 200)
    const fresh = r.json().data
    assert.notEqual(fresh, token)
    const replay = await new Client(server.url).postJson('/api/reauth', { token })
    assert.equal(replay.status, 401)
    assert.deepEqual(replay.json(), { message: 'Could not reauthenticate based on given token.', code: 'E_REAUTH_FAILED' })
    for (const body of [{}, { token: null }, { token: '' }]) {
      const empty = await new Client(server.url).postJson('/api/reauth', body)
      assert.equal(empty.status, 401)
    }
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${fresh}` })).status, 200)
  })

  it('of 10 concurrent reauths with one token exactly one wins', async () => {
    const token = await getToken(server.url, 'other@example.test')
    const results = await Promise.all(Array.from({ length: 10 }, () => new Client(server.url).postJson('/api/reauth', { token })))
    const winners = results.filter((r) => r.status === 200)
    assert.equal(winners.length, 1, results.map((r) => r.status).join(','))
    assert.ok(results.every((r) => r.status === 200 || r.status === 401))
  })

  it('guard:jwt: auth.user() is the user holding the token; null once replaced (authenticates false)', async () => {
    const token = await getToken(server.url, 'api@example.test')
    const ok = await new Client(server.url).get('/api/guarded', { authorization: `Bearer ${token}` })
    assert.deepEqual(ok.json(), { user: 'api@example.test' })
    await getToken(server.url, 'api@example.test')
    const replaced = await new Client(server.url).get('/api/guarded', { authorization: `Bearer ${token}` })
    assert.equal(replaced.status, 200)
    assert.deepEqual(replaced.json(), { user: null })
  })

  it('resource routes from craft controller -a', async () => {
    const token = await getToken(server.url, 'api@example.test')
    const h = { authorization: `Bearer ${token}` }
    const c = new Client(server.url)
    assert.deepEqual((await c.get('/api/posts', h)).json(), { data: [] })
    assert.deepEqual((await c.get('/api/posts/5', h)).json(), { data: { id: '5' } })
    assert.equal((await c.request('POST', '/api/posts', { json: { title: 't' }, headers: h })).status, 201)
    assert.equal((await c.request('PATCH', '/api/posts/5', { json: { title: 't' }, headers: h })).status, 200)
    assert.equal((await c.request('PUT', '/api/posts/5', { json: { title: 't' }, headers: h })).status, 200)
    assert.equal((await c.request('DELETE', '/api/posts/5', { headers: h })).status, 200)
    assert.equal((await c.get('/api/posts')).status, 401)
  })

  it('authenticates: true refuses a replaced token at once', async () => {
    await restart({ authenticates: 'true' })
    const first = await getToken(server.url, 'api@example.test')
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${first}` })).status, 200)
    await getToken(server.url, 'api@example.test')
    const r = await new Client(server.url).get('/api/me', { authorization: `Bearer ${first}` })
    assert.equal(r.status, 401)
    assert.equal(r.json().code, 'E_TOKEN_INVALID')
    await restart({ authenticates: 'false' })
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${first}` })).status, 200, 'false makes no database check')
  })

  it('expires (fractional minutes): exp = iat + 6 s, then invalid; reauth still works', async () => {
    // 6 s, so that the request right after the login comes before it on a busy machine.
    await restart({ expires: '0.1' })
    const token = await getToken(server.url, 'api@example.test')
    const [, payload] = decode(token)
    assert.equal(payload.exp - payload.iat, 6)
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })).status, 200)
    await new Promise((r) => setTimeout(r, 7200))
    const expired = await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })
    assert.equal(expired.status, 401)
    assert.equal(expired.json().code, 'E_TOKEN_INVALID')
    const re = await new Client(server.url).postJson('/api/reauth', { token })
    assert.equal(re.status, 200)
    // authenticates: true as well: the stored digest is the token's, and expiry still refuses it.
    await restart({ expires: '0.1', authenticates: 'true' })
    const held = await getToken(server.url, 'api@example.test')
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${held}` })).status, 200)
    await new Promise((r) => setTimeout(r, 7200))
    const stale = await new Client(server.url).get('/api/me', { authorization: `Bearer ${held}` })
    assert.equal(stale.status, 401, 'an expired token whose digest is stored was accepted with authenticates: true')
    assert.equal(stale.json().code, 'E_TOKEN_INVALID')
    await restart({ expires: 'null', authenticates: 'false' })
  })

  it('a version bump invalidates earlier tokens, for use and for reauth', async () => {
    const token = await getToken(server.url, 'api@example.test')
    await restart({ version: '2' })
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })).status, 401)
    assert.equal((await new Client(server.url).postJson('/api/reauth', { token })).status, 401)
    const fresh = await getToken(server.url, 'api@example.test')
    assert.equal(decode(fresh)[1].version, 2)
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${fresh}` })).status, 200)
    await restart({ version: 'null' })
  })
})

describe('JWT API wiring variants', () => {
  it('a custom tokenColumn and custom auth/reauth routes', async () => {
    const app = await newApp()
    try {
      applyAuthSteps(app)
      applyApiSteps(app, { tokenColumn: 'jwt_digest', authRoute: '/tokens/new', reauthRoute: '/tokens/renew' })
      migrate(app)
      const server = await app.serve()
      await registerUser(server.url, 'custom@example.test')
      const r = await new Client(server.url).postJson('/tokens/new', { username: 'custom@example.test', password: PASSWORD })
      assert.equal(r.status, 200, r.text)
      const re = await new Client(server.url).postJson('/tokens/renew', { token: r.json().data })
      assert.equal(re.status, 200)
      assert.equal((await new Client(server.url).postJson('/api/auth', { username: 'custom@example.test', password: PASSWORD })).status, 404)
      const me = await new Client(server.url).get('/api/me', { authorization: `Bearer ${re.json().data}` })
      assert.equal(me.status, 200)
      assert.equal('jwt_digest' in me.json().data, false, 'the custom column is hidden')
    } finally {
      await app.cleanup()
    }
  })

  it('without ApiProvider: Api.routes() stops the app naming ApiProvider and config/providers.ts; routes/api.ts is not served', async () => {
    const app = await newApp()
    try {
      app.edit('routes/web.ts', (t) => `import { Api } from 'trowel/api'\n` + t.replace('export const ROUTES = [', 'export const ROUTES = [\n  ...Api.routes(),'))
      migrate(app)
      await assert.rejects(app.serve(), (e: Error) => /ApiProvider/.test(e.message) && /config\/providers\.ts/.test(e.message))
      app.edit('routes/web.ts', (t) => t.replace('  ...Api.routes(),\n', ''))
      app.write('routes/api.ts', `import { Route } from 'trowel'\nexport const ROUTES = [Route.get('/open', () => ({ open: true }))]\n`)
      app.edit('Kernel.ts', (t) => t.replace("this.application.bind('routes.location', 'routes/web')", "this.application.bind('routes.location', 'routes/web')\n    this.application.bind('routes.api.location', 'routes/api')"))
      const server = await app.serve()
      assert.equal((await new Client(server.url).get('/api/open')).status, 404)
    } finally {
      await app.cleanup()
    }
  })

  describe('JWT_SECRET at startup (one app)', () => {
    let app: TestApp
    before(async () => {
      app = await newApp()
      applyAuthSteps(app)
      applyApiSteps(app)
      migrate(app)
    })
    after(() => app.cleanup())

    it('rotating JWT_SECRET: tokens of a previous secret verify only while it is listed in JWT_PREVIOUS_SECRETS', async () => {
      const old = /^JWT_SECRET=(.+)$/m.exec(app.read('.env'))![1]!
      let server = await app.serve()
      try {
        await registerUser(server.url, 'rotate@example.test')
        const token = await getToken(server.url, 'rotate@example.test')
        await server.stop()
        const fresh = 'n'.repeat(20) + Buffer.from('a new secret for rotation tests').toString('base64url')
        app.edit('.env', (t) => t.replace(/^JWT_SECRET=.*$/m, `JWT_SECRET=${fresh}`))
        server = await app.serve({ JWT_PREVIOUS_SECRETS: old })
        assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })).status, 200)
        const renewed = await new Client(server.url).postJson('/api/reauth', { token })
        assert.equal(renewed.status, 200)
        await server.stop()
        server = await app.serve()
        assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })).status, 401)
        assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${renewed.json().data}` })).status, 200)
      } finally {
        await server.stop()
      }
    })

    // After the rotation: it takes the secret away.
    it('a missing or short JWT_SECRET stops the app at startup naming JWT_SECRET', async () => {
      app.edit('.env', (t) => t.replace(/^JWT_SECRET=.*$/m, 'JWT_SECRET=short'))
      await assert.rejects(app.serve(), /JWT_SECRET/)
      app.edit('.env', (t) => t.replace(/^JWT_SECRET=.*$/m, ''))
      await assert.rejects(app.serve(), /JWT_SECRET/)
      // With --workers the primary stops too (exit 1), instead of restarting workers for ever.
      await assert.rejects(app.serve({}, ['--workers', '2']), /exited with 1 before listening[\s\S]*JWT_SECRET/)
    })
  })
})
