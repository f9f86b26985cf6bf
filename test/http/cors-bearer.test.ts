/**
 * Black-box: a Bearer SPA on another origin against a new app with the JWT API, after setting
 * only `CORS_ORIGINS`: the browser's preflights for the token route and an API route pass, the
 * token comes back readable, a 401 exposes `WWW-Authenticate`, and no cookie is involved.
 * Credentials stay off (the generated `config/cors.ts`), so no answer allows credentials.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { PASSWORD, registerUser } from '../helpers/security-kit.js'

const SPA = 'http://127.0.0.2:5173'

describe('a Bearer SPA on another origin', () => {
  let app: TestApp
  let server: Server

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    budgetsOff(app)
    migrate(app)
    // The generated config/cors.ts is left as it is: CORS_ORIGINS alone turns CORS on.
    assert.match(app.read('config/cors.ts'), /origins: \[\], credentials: false, max_age: 600/)
    server = await app.serve({ CORS_ORIGINS: SPA })
    await registerUser(server.url, 'spa@example.test')
  })
  after(() => app.cleanup())

  it('signs in through POST /api/auth and calls /api/me with the Bearer token', async () => {
    const spa = new Client(server.url)
    const pre = await spa.request('OPTIONS', '/api/auth', { headers: { origin: SPA, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } })
    assert.equal(pre.status, 204)
    assert.equal(pre.headers.get('access-control-allow-origin'), SPA)
    assert.equal(pre.headers.get('access-control-allow-credentials'), null)
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/)

    const login = await spa.postJson('/api/auth', { username: 'spa@example.test', password: PASSWORD }, { origin: SPA })
    assert.equal(login.status, 200, login.text)
    assert.equal(login.headers.get('access-control-allow-origin'), SPA)
    assert.deepEqual(login.setCookies, [], 'no cookie')
    const token = login.json().data as string

    const preMe = await spa.request('OPTIONS', '/api/me', { headers: { origin: SPA, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } })
    assert.equal(preMe.status, 204)
    assert.equal(preMe.headers.get('access-control-allow-methods'), 'GET, HEAD')
    const me = await spa.get('/api/me', { origin: SPA, authorization: `Bearer ${token}`, accept: 'application/json' })
    assert.equal(me.status, 200)
    assert.equal(me.json().data.email, 'spa@example.test')
    assert.equal(me.headers.get('access-control-allow-origin'), SPA)
  })

  it('a 401 lets the SPA read WWW-Authenticate; a wrong password is readable too', async () => {
    const spa = new Client(server.url)
    const missing = await spa.get('/api/me', { origin: SPA, accept: 'application/json' })
    assert.equal(missing.status, 401)
    assert.equal(missing.headers.get('access-control-allow-origin'), SPA)
    assert.match(missing.headers.get('access-control-expose-headers') ?? '', /\bWWW-Authenticate\b/)
    assert.ok(missing.headers.get('www-authenticate'))
    const wrong = await spa.postJson('/api/auth', { username: 'spa@example.test', password: 'wrong password' }, { origin: SPA })
    assert.equal(wrong.status, 401)
    assert.equal(wrong.json().code, 'E_INVALID_CREDENTIALS')
    assert.equal(wrong.headers.get('access-control-allow-origin'), SPA)
  })

  it('another origin gets no Allow-Origin and its preflight is refused', async () => {
    const other = new Client(server.url)
    const r = await other.postJson('/api/auth', { username: 'spa@example.test', password: PASSWORD }, { origin: 'http://127.0.0.3:5173' })
    assert.equal(r.headers.get('access-control-allow-origin'), null)
    const pre = await other.request('OPTIONS', '/api/auth', { headers: { origin: 'http://127.0.0.3:5173', 'access-control-request-method': 'POST' } })
    assert.equal(pre.status, 403)
  })
})
