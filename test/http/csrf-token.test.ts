/**
 * Black-box: a cookie SPA on the same site. `GET /csrf-token` starts the session and answers its
 * token; every form accepts it as `X-CSRF-TOKEN`; answers that change the token (login, logout,
 * registration) carry the new one in `X-CSRF-TOKEN`, and the old one stops working. Written as
 * the attacks it must stop: a token from another session, a token from before the login.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, installAuth, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { PASSWORD } from '../helpers/security-kit.js'

const JSON_HEADERS = { accept: 'application/json' }

describe('GET /csrf-token and the X-CSRF-TOKEN header', () => {
  let app: TestApp
  let server: Server

  before(async () => {
    app = await newApp()
    installAuth(app)
    budgetsOff(app)
    migrate(app)
    server = await app.serve()
  })
  after(() => app.cleanup())

  /** A registered user's address, registered through the JSON form with the header. */
  async function registered(email: string): Promise<void> {
    const client = new Client(server.url)
    const token = (await client.get('/csrf-token', JSON_HEADERS)).json().token as string
    const r = await client.postJson('/register', { name: 'Ada', email, password: PASSWORD, password_confirmation: PASSWORD }, { ...JSON_HEADERS, 'x-csrf-token': token })
    assert.ok(r.status === 302 || r.status === 200 || r.status === 201, `registration: ${r.status} ${r.text}`)
    const rotated = r.headers.get('x-csrf-token')
    assert.ok(rotated && rotated !== token, 'a registration answer carries the new token')
  }

  it('answers {"token"} with the session cookie, no-store, the same token for the same session', async () => {
    const client = new Client(server.url)
    const first = await client.get('/csrf-token')
    assert.equal(first.status, 200)
    assert.match(first.headers.get('content-type') ?? '', /application\/json/)
    assert.equal(first.headers.get('cache-control'), 'no-store')
    const { token } = first.json()
    assert.match(token, /^[A-Za-z0-9_-]{32,}$/)
    assert.ok(first.setCookies.some((c) => c.startsWith('trowel_session=') && /httponly/i.test(c) && /samesite=lax/i.test(c)), 'the session cookie is set')
    // Ten at once with the same session: one token.
    const again = await Promise.all(Array.from({ length: 10 }, () => client.get('/csrf-token')))
    for (const r of again) assert.equal(r.json().token, token)
    // Another visitor gets another token.
    assert.notEqual((await new Client(server.url).get('/csrf-token')).json().token, token)
  })

  it('GET /csrf-token then a JSON POST /login with X-CSRF-TOKEN logs in; the answer carries the rotated token', async () => {
    await registered('spa-login@example.test')
    const spa = new Client(server.url)
    const token = (await spa.get('/csrf-token', JSON_HEADERS)).json().token as string
    const login = await spa.postJson('/login', { email: 'spa-login@example.test', password: PASSWORD }, { ...JSON_HEADERS, 'x-csrf-token': token })
    assert.ok(login.status === 302 || login.status === 200, `login: ${login.status} ${login.text}`)
    const rotated = login.headers.get('x-csrf-token')
    assert.ok(rotated, 'the login answer carries X-CSRF-TOKEN')
    assert.notEqual(rotated, token, 'a new token')
    assert.equal((await spa.get('/home')).status, 200, 'logged in')
    assert.equal((await spa.get('/csrf-token')).json().token, rotated, '/csrf-token now answers the rotated token')

    // The pre-login token is refused now; the rotated one works.
    const stale = await spa.request('POST', '/logout', { json: {}, headers: { ...JSON_HEADERS, 'x-csrf-token': token } })
    assert.equal(stale.status, 419)
    assert.equal(stale.json().code, 'E_CSRF')
    const logout = await spa.request('POST', '/logout', { json: {}, headers: { ...JSON_HEADERS, 'x-csrf-token': rotated } })
    assert.ok(logout.status === 302 || logout.status === 200, `logout: ${logout.status} ${logout.text}`)
    assert.notEqual((await spa.get('/home')).status, 200, 'logged out')

    // The logout answer carries the token of the next form: a second login needs no extra request.
    const afterLogout = logout.headers.get('x-csrf-token')
    assert.ok(afterLogout && afterLogout !== rotated, 'the logout answer carries a new token')
    const again = await spa.postJson('/login', { email: 'spa-login@example.test', password: PASSWORD }, { ...JSON_HEADERS, 'x-csrf-token': afterLogout })
    assert.ok(again.status === 302 || again.status === 200, `second login: ${again.status} ${again.text}`)
    assert.equal((await spa.get('/home')).status, 200)
  })

  it('attack: a token read in the attacker\'s own session does not work with the victim\'s cookie', async () => {
    await registered('victim@example.test')
    const victim = new Client(server.url)
    const victimToken = (await victim.get('/csrf-token')).json().token as string
    const login = await victim.postJson('/login', { email: 'victim@example.test', password: PASSWORD }, { ...JSON_HEADERS, 'x-csrf-token': victimToken })
    assert.ok(login.status === 302 || login.status === 200)
    const attacker = new Client(server.url)
    const attackerToken = (await attacker.get('/csrf-token')).json().token as string
    // A forged cross-site request rides on the victim's cookie with a token the attacker knows.
    for (const forged of [attackerToken, victimToken, '', 'x'.repeat(43)]) {
      const r = await victim.request('POST', '/logout', { json: {}, headers: { ...JSON_HEADERS, 'x-csrf-token': forged } })
      assert.equal(r.status, 419, `forged token ${JSON.stringify(forged.slice(0, 6))}`)
    }
    const none = await victim.request('POST', '/logout', { json: {}, headers: JSON_HEADERS })
    assert.equal(none.status, 419)
    assert.equal((await victim.get('/home')).status, 200, 'the victim is still logged in')
  })

  it('a form keeps working with __token, and a page that reads the token announces it once', async () => {
    const client = new Client(server.url)
    const page = await client.get('/login')
    assert.equal(page.headers.get('x-csrf-token'), client.csrf(), 'the first page that made the token sends it')
    const second = await client.get('/login')
    assert.equal(second.headers.get('x-csrf-token'), null, 'an unchanged token is not sent again')
    const r = await client.post('/login', { __token: client.csrf(), email: 'nobody@example.test', password: 'wrong password' })
    assert.equal(r.status, 302)
    assert.equal(r.location, '/login')
  })
})
