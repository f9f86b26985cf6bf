/**
 * Black-box: web authentication in a generated app (craft new + craft auth + Auth.routes()),
 * over HTTP, with password-reset mail read from a real SMTP peer.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, installAuth, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'

const PASSWORD = 'correct horse battery staple'

describe('web authentication', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL: 'http://app.example.test' } })
    installAuth(app)
    // This suite makes more requests from 127.0.0.1 than the per-IP budget allows in a minute.
    app.edit('config/auth.ts', (t) => t.replace('register: { attempts: 10, minutes: 1 }', 'register: null'))
    migrate(app)
    server = await app.serve()
  })
  after(async () => {
    await app.cleanup()
    await smtp.close()
  })

  async function register(client: Client, email: string, extra: Record<string, string> = {}) {
    return client.submit('/register', '/register', { name: 'Ada Lovelace', email, password: PASSWORD, password_confirmation: PASSWORD, ...extra })
  }

  it('craft auth wrote the controllers, templates and mail', () => {
    for (const f of ['LoginController', 'RegisterController', 'HomeController', 'PasswordResetController']) assert.ok(app.exists(`app/controllers/auth/${f}.ts`), f)
    for (const t of ['base', 'login', 'register', 'home', 'password_reset', 'change_password']) assert.ok(app.exists(`templates/auth/${t}.html`), t)
    assert.ok(app.exists('app/mailables/ResetPassword.ts'))
    assert.ok(app.exists('templates/mailables/auth/reset_password.html'))
    const again = app.craft('auth')
    assert.notEqual(again.code, 0)
    assert.match(again.stderr, /--force/)
  })

  it('login and register forms carry the CSRF field', async () => {
    const client = new Client(server.url)
    const login = await client.get('/login')
    assert.equal(login.status, 200)
    assert.match(login.text, /name="email"/)
    assert.match(login.text, /name="password"/)
    assert.match(login.text, /name="__token"/)
    const reg = await client.get('/register')
    for (const f of ['name', 'email', 'password', 'password_confirmation']) assert.match(reg.text, new RegExp(`name="${f}"`))
  })

  it('register → home → logout → the old cookie is no longer logged in', async () => {
    const client = new Client(server.url)
    const r = await register(client, 'ada@example.test')
    assert.equal(r.status, 302)
    assert.equal(r.location, '/home')
    const home = await client.get('/home')
    assert.equal(home.status, 200)
    assert.match(home.text, /Ada Lovelace/)
    assert.match(home.text, /We sent a link to ada@example\.test to verify your e-mail address/)
    assert.equal(home.headers.get('cache-control'), 'no-store')
    const oldCookies = client.cookieHeader()
    const out = await client.post('/logout', { __token: client.csrf() })
    assert.equal(out.status, 302)
    assert.equal(out.location, '/login')
    const replay = await client.request('GET', '/home', { headers: { cookie: oldCookies }, cookies: false })
    assert.equal(replay.status, 302)
    assert.equal(replay.location, '/login')
  })

  it('the auth cookie is HttpOnly, SameSite=Lax and holds no user id', async () => {
    const client = new Client(server.url)
    const r = await register(client, 'cookie@example.test')
    const auth = r.setCookies.find((c) => c.startsWith('trowel_auth='))
    assert.ok(auth, r.setCookies.join('\n'))
    assert.match(auth!, /HttpOnly/i)
    assert.match(auth!, /SameSite=Lax/i)
  })

  it('login: success 302 /home, failure 302 /login with the message', async () => {
    const setup = new Client(server.url)
    await register(setup, 'grace@example.test')
    const client = new Client(server.url)
    const bad = await client.submit('/login', '/login', { email: 'grace@example.test', password: 'wrong password!' })
    assert.equal(bad.status, 302)
    assert.equal(bad.location, '/login')
    const page = await client.get('/login')
    assert.match(page.text, /The email or password is incorrect\./)
    // Credentials in the query string are not credentials (they would sit in logs and history).
    const query = new URLSearchParams({ email: 'grace@example.test', password: PASSWORD })
    const inUrl = await client.post(`/login?${query}`, { __token: client.csrf() })
    assert.equal(inUrl.location, '/login')
    const good = await client.submit('/login', '/login', { email: ' GRACE@example.test ', password: PASSWORD })
    assert.equal(good.status, 302)
    assert.equal(good.location, '/home')
    assert.equal((await client.get('/home')).status, 200)
  })

  it('logging in elsewhere keeps this device logged in; login rotates the CSRF token', async () => {
    const setup = new Client(server.url)
    await register(setup, 'two@example.test')
    const a = new Client(server.url)
    await a.get('/login')
    const before = a.csrf()
    await a.post('/login', { __token: before, email: 'two@example.test', password: PASSWORD })
    const b = new Client(server.url)
    await b.submit('/login', '/login', { email: 'two@example.test', password: PASSWORD })
    assert.equal((await a.get('/home')).status, 200)
    assert.equal((await b.get('/home')).status, 200)
    assert.notEqual(a.csrf(), before)
    const stale = await a.post('/logout', { __token: before })
    assert.equal(stale.status, 419)
  })

  it('POST without or with a wrong CSRF token is 419 and changes nothing', async () => {
    const client = new Client(server.url)
    await client.get('/register')
    const r = await client.post('/register', { name: 'X', email: 'csrf@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.status, 419)
    assert.match(r.text, /<title>419 Page Expired<\/title>/)
    const wrong = await client.post('/register', { __token: 'nope', name: 'X', email: 'csrf@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(wrong.status, 419)
    const login = await new Client(server.url).submit('/login', '/login', { email: 'csrf@example.test', password: PASSWORD })
    assert.equal(login.location, '/login')
  })

  it('invalid registration goes back with errors and input kept (not passwords); nothing stored', async () => {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Bad', email: 'not-an-email', password: 'short', password_confirmation: 'other' })
    assert.equal(r.status, 302)
    assert.equal(r.location, '/register')
    const page = await client.get('/register')
    assert.match(page.text, /value="not-an-email"/)
    assert.match(page.text, /value="Bad"/)
    assert.doesNotMatch(page.text, /value="short"/)
    assert.match(page.text, /field-error/)
    const common = await client.submit('/register', '/register', { name: 'C', email: 'common@example.test', password: 'password123', password_confirmation: 'password123' })
    assert.equal(common.location, '/register')
    assert.match((await client.get('/register')).text, /too common/)
    // A common password is said at once, also beside a confirmation that does not match.
    const both = await client.submit('/register', '/register', { name: 'C', email: 'common@example.test', password: 'password', password_confirmation: 'passwort' })
    assert.equal(both.location, '/register')
    const page2 = (await client.get('/register')).text
    assert.match(page2, /too common/)
    assert.match(page2, /confirmation does not match/)
  })

  it('duplicate e-mail (any case, spaces) is refused', async () => {
    await register(new Client(server.url), 'dup@example.test')
    const client = new Client(server.url)
    const r = await register(client, '  DUP@Example.test ')
    assert.equal(r.location, '/register')
    assert.match((await client.get('/register')).text, /already been taken/)
  })

  it('concurrent registrations of one address in two cases: exactly one account', async () => {
    for (const name of ['race-a', 'race-b', 'race-c']) {
      const results = await Promise.all(
        [`${name}@example.test`, `${name.toUpperCase()}@Example.TEST`].map((email) => register(new Client(server.url), email)),
      )
      const locations = results.map((r) => r.location).sort()
      assert.deepEqual(locations, ['/home', '/register'], name)
    }
  })

  it('registration ignores fields outside fillable', async () => {
    const client = new Client(server.url)
    const r = await register(client, 'mass@example.test', { id: '999', remember_token: 'x', api_token: 'y', is_admin: '1' })
    assert.equal(r.location, '/home')
    const home = await client.get('/home')
    assert.equal(home.status, 200)
  })

  it('the welcome page links to register and login once the auth routes exist', async () => {
    const welcome = await new Client(server.url).get('/')
    assert.equal(welcome.status, 200)
    assert.match(welcome.text, /href="\/register"/)
    assert.match(welcome.text, /href="\/login"/)
    assert.doesNotMatch(welcome.text, /node craft auth/)
  })

  it('/home without login redirects to /login', async () => {
    const r = await new Client(server.url).get('/home')
    assert.equal(r.status, 302)
    assert.equal(r.location, '/login')
  })

  it('throttles after 5 failures: message on the form, even for the right password', async () => {
    await register(new Client(server.url), 'throttle@example.test')
    const client = new Client(server.url)
    for (let i = 0; i < 5; i++) {
      const r = await client.submit('/login', '/login', { email: 'throttle@example.test', password: `wrong-${i}-password` })
      assert.equal(r.location, '/login')
    }
    const blocked = await client.submit('/login', '/login', { email: 'throttle@example.test', password: PASSWORD })
    assert.equal(blocked.status, 302)
    assert.equal(blocked.location, '/login')
    assert.match((await client.get('/login')).text, /Too many attempts/)
    const json = await client.request('POST', '/login', { json: { email: 'throttle@example.test', password: PASSWORD }, headers: { accept: 'application/json', 'x-csrf-token': client.csrf() } })
    assert.equal(json.status, 429)
    assert.equal(json.json().code, 'E_TOO_MANY_REQUESTS')
    assert.ok(Number(json.headers.get('retry-after')) > 0)
  })

  it('password reset: same answer for unknown addresses; link from APP_URL; single use; every login revoked', async () => {
    const device = new Client(server.url)
    await register(device, 'reset@example.test')
    assert.equal((await device.get('/home')).status, 200)

    const unknown = new Client(server.url)
    const u = await unknown.submit('/password_reset', '/password_reset', { email: 'nobody@example.test' })
    const unknownPage = (await unknown.get('/password_reset')).text
    const known = new Client(server.url)
    const k = await known.submit('/password_reset', '/password_reset', { email: 'reset@example.test' }, )
    const knownPage = (await known.get('/password_reset')).text
    assert.equal(u.status, 302)
    assert.equal(k.status, 302)
    assert.equal(u.location, k.location)
    const msg = /role="status">([^<]+)</.exec(knownPage)?.[1]
    assert.ok(msg)
    assert.equal(/role="status">([^<]+)</.exec(unknownPage)?.[1], msg)

    // The reset mail (registration also mailed this address its verification link).
    const mail = await smtp.waitFor((m) => m.to.includes('reset@example.test') && /change_password\//.test(mailText(m.raw)))
    const link = /http:\/\/app\.example\.test\/change_password\/([A-Za-z0-9_-]{43})/.exec(mailText(mail.raw))
    assert.ok(link, mailText(mail.raw))
    const token = link[1]!
    assert.equal(smtp.messages.some((m) => m.to.includes('nobody@example.test')), false)

    const page = await known.get(`/change_password/${token}`)
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer')
    // The token as a field on POST /change_password: a mismatch goes back to a form that still
    // carries the token (no Referer is sent from that page), and the token is not consumed.
    const mismatch = await known.post('/change_password', { __token: known.csrf(), token, password: 'mismatch one A9', password_confirmation: 'mismatch two B9' })
    assert.equal(mismatch.status, 302)
    assert.equal(mismatch.location, `/change_password/${token}`)
    const again = await known.get(mismatch.location!)
    assert.ok(again.text.includes(token), 'the form still carries the token')
    assert.match(again.text, /confirmation does not match|does not match/i)
    const NEW = 'a brand new passphrase'
    const done = await known.post(`/change_password/${token}`, { __token: known.csrf(), password: NEW, password_confirmation: NEW })
    assert.equal(done.status, 302)
    assert.equal(done.location, '/login')

    assert.equal((await device.get('/home')).status, 302, 'the other device was logged out')
    const reuse = await known.submit(`/change_password/${token}`, `/change_password/${token}`, { password: 'another passphrase', password_confirmation: 'another passphrase' })
    assert.equal(reuse.status, 302)
    assert.notEqual(reuse.location, '/login')
    const login = await new Client(server.url).submit('/login', '/login', { email: 'reset@example.test', password: NEW })
    assert.equal(login.location, '/home')
  })
})
