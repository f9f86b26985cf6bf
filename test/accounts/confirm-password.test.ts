/**
 * Black-box: `password.confirm`. A password login counts as a confirmation for
 * GUARDS.web.password_timeout minutes (0.05 here: 3 s); after that the route sends the user to
 * `/confirm-password` and, once the right password is typed, back where they were going (a GET:
 * the page; a POST: the page the form was on). JSON gets 423. A "remember me" login is not a typed
 * password; a registration is. The form a confirmation interrupted gets its input back (no
 * password). Confirmations are budgeted per account before any hashing.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { patientHashing } from '../helpers/auth-config.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { PASSWORD } from '../helpers/security-kit.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Longer than password_timeout (0.1 minutes = 6 s, long enough for a login and a request or two on a busy machine). */
const PAST_TIMEOUT = 6500

describe('password confirmation (password.confirm)', () => {
  let app: TestApp
  let server: Server

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    app.edit('config/auth.ts', (t) =>
      t
        .replace('web: { model: User }', 'web: { model: User, password_timeout: 0.1 }')
        .replace(/features: \[[^\]]*\]/, "features: ['registration', 'reset_passwords', 'remember_me']")
        // Budgets off (many requests from one address), except `confirm`, tested below.
        .replace(/throttle: \{[\s\S]*?\n {2}\},/, 'throttle: { login: null, ip: null, account: null, register: null, reset: null, verify: null, confirm: { attempts: 5, minutes: 1 } },'),
    )
    // The confirmation page (Auth.routes() adds it with the `account` feature, off here) and two protected routes.
    app.edit('routes/web.ts', (t) =>
      t.replace(
        'export const ROUTES = [',
        `export const ROUTES = [
  Route.get('/confirm-password', 'auth/ConfirmPasswordController@show').middleware(['auth']),
  Route.post('/confirm-password', 'auth/ConfirmPasswordController@store').middleware(['auth']),
  Route.get('/secret', (ctx) => \`secret of \${ctx.auth.user().name}\`).middleware(['auth', 'password.confirm']),
  Route.post('/secret', () => 'done').middleware(['auth', 'password.confirm']),
  Route.get('/form-page', (ctx) => \`name=\${ctx.session.old('name', '')} secret=\${ctx.session.old('secret_password', '')}\${ctx.session.old('code', '')}\`).middleware(['auth']),`,
      ),
    )
    // Bursts of checks from one client wait in one line: no 2 s limit on a busy machine.
    patientHashing(app)
    migrate(app)
    server = await app.serve()
  })
  after(() => app.cleanup())

  async function register(email: string): Promise<void> {
    const r = await new Client(server.url).submit('/register', '/register', { name: 'Conf', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', r.text)
  }

  async function login(email: string, extra: Record<string, string> = {}): Promise<Client> {
    const client = new Client(server.url)
    const r = await client.submit('/login', '/login', { email, password: PASSWORD, ...extra })
    assert.equal(r.location, '/home')
    return client
  }

  it('a password login counts as a confirmation: the protected page opens at once', async () => {
    await register('fresh@example.test')
    const client = await login('fresh@example.test')
    const page = await client.get('/secret')
    assert.equal(page.status, 200)
    assert.match(page.text, /secret of Conf/)
  })

  it('once it is older than password_timeout: 302 /confirm-password; wrong password → field error; right → back', async () => {
    await register('stale@example.test')
    const client = await login('stale@example.test')
    await sleep(PAST_TIMEOUT)
    const stopped = await client.get('/secret')
    assert.equal(stopped.status, 302)
    assert.equal(stopped.location, '/confirm-password')

    const form = await client.get('/confirm-password')
    assert.equal(form.status, 200)
    assert.match(form.text, /<form method="POST" action="\/confirm-password"/)
    assert.match(form.text, /name="__token"/)
    assert.match(form.text, /<label for="password">Password<\/label>/)
    assert.match(form.text, /<input id="password" name="password" type="password" autocomplete="current-password"/)

    const wrong = await client.post('/confirm-password', { __token: client.csrf(), password: 'not the password at all' })
    assert.equal(wrong.status, 302)
    assert.equal(wrong.location, '/confirm-password')
    const withError = await client.get('/confirm-password')
    assert.match(withError.text, /<p class="field-error" id="password-error">The password is incorrect\.<\/p>/)
    assert.match(withError.text, /aria-invalid="true"/)
    assert.doesNotMatch(withError.text, /not the password at all/, 'the password is never sent back')
    assert.equal((await client.get('/secret')).status, 302, 'a wrong password gives no access')

    const right = await client.post('/confirm-password', { __token: client.csrf(), password: PASSWORD })
    assert.equal(right.status, 302)
    assert.equal(right.location, '/secret')
    assert.equal((await client.get('/secret')).status, 200)
  })

  it('registering counts as a typed password: the protected page opens at once, until password_timeout', async () => {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Conf', email: 'registered@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', r.text)
    assert.equal((await client.get('/secret')).status, 200)
    await sleep(PAST_TIMEOUT)
    assert.equal((await client.get('/secret')).location, '/confirm-password')
  })

  it('the form it stopped gets its input back once confirmed (never a password), once', async () => {
    await register('input@example.test')
    const client = await login('input@example.test')
    await sleep(PAST_TIMEOUT)
    await client.get('/home')
    const stopped = await client.post('/secret', { __token: client.csrf(), name: 'Work laptop', secret_password: 'hunter2 hunter2', code: '123456' }, { referer: `${server.url}/form-page` })
    assert.equal(stopped.location, '/confirm-password')
    const back = await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(back.location, '/form-page')
    assert.equal((await client.get('/form-page')).text, 'name=Work laptop secret=')
    assert.equal((await client.get('/form-page')).text, 'name= secret=', 'flashed for one page only')
  })

  it('a POST behind it returns the user to the page the form was on (same-site only)', async () => {
    await register('post@example.test')
    const client = await login('post@example.test')
    const other = await login('post@example.test')
    await sleep(PAST_TIMEOUT)
    await client.get('/home')
    const stopped = await client.post('/secret', { __token: client.csrf() }, { referer: `${server.url}/settings/page?tab=2` })
    assert.equal(stopped.status, 302)
    assert.equal(stopped.location, '/confirm-password')
    const back = await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(back.location, '/settings/page?tab=2')
    await client.get('/home')
    assert.equal((await client.post('/secret', { __token: client.csrf() })).text, 'done')

    // Only a path on this site is ever a target: a Referer whose path leads off-site gives the default page.
    await other.get('/home')
    const foreign = await other.post('/secret', { __token: other.csrf() }, { referer: 'https://evil.example//evil.example/phish' })
    assert.equal(foreign.location, '/confirm-password')
    const landed = await other.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(landed.location, '/home')
  })

  it('JSON gets 423 E_PASSWORD_CONFIRMATION_REQUIRED (and 401 when not logged in)', async () => {
    await register('json@example.test')
    const client = await login('json@example.test')
    await sleep(PAST_TIMEOUT)
    const r = await client.get('/secret', { accept: 'application/json' })
    assert.equal(r.status, 423)
    assert.equal(r.json().code, 'E_PASSWORD_CONFIRMATION_REQUIRED')
    const anonymous = await new Client(server.url).get('/secret', { accept: 'application/json' })
    assert.equal(anonymous.status, 401)
    const page = await new Client(server.url).get('/confirm-password')
    assert.equal(page.status, 302)
    assert.match(String(page.location), /^\/login/)
  })

  it('a "remember me" login is not a typed password', async () => {
    await register('remembered@example.test')
    const client = await login('remembered@example.test', { remember: '1' })
    assert.equal((await client.get('/secret')).status, 200, 'the password login itself counts')
    // Browser restart: only the remember cookie is left; it logs in, but does not confirm.
    const restarted = new Client(server.url)
    restarted.cookies.set('trowel_remember', client.cookies.get('trowel_remember')!)
    assert.equal((await restarted.get('/home')).status, 200)
    const stopped = await restarted.get('/secret')
    assert.equal(stopped.status, 302)
    assert.equal(stopped.location, '/confirm-password')
    const back = await restarted.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(back.location, '/secret')
    assert.equal((await restarted.get('/secret')).status, 200)
  })

  it('20 concurrent wrong confirmations: at most 5 are checked, the rest refused before hashing; then even the right one waits', async () => {
    await register('budget@example.test')
    const client = await login('budget@example.test')
    await client.get('/confirm-password')
    const token = client.csrf()
    const headers = { accept: 'application/json', 'x-csrf-token': token }
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.request('POST', '/confirm-password', { json: { password: `wrong password ${i}` }, headers })),
    )
    const statuses = results.map((r) => r.status)
    const checked = statuses.filter((s) => s === 422).length
    const refused = results.filter((r) => r.status === 429)
    assert.ok(checked <= 5, `${checked} checked`)
    assert.equal(checked + refused.length, 20, statuses.join(','))
    assert.ok(refused.length >= 15)
    for (const r of refused) {
      assert.equal(r.json().code, 'E_TOO_MANY_REQUESTS')
      assert.ok(Number(r.headers.get('retry-after')) > 0)
    }
    for (const r of results.filter((x) => x.status === 422)) assert.deepEqual(r.json().details?.errors?.password ?? r.json().errors?.password, ['The password is incorrect.'])
    const right = await client.request('POST', '/confirm-password', { json: { password: PASSWORD }, headers })
    assert.equal(right.status, 429, 'over the budget nothing is checked, not even the right password')
    // The form gets the message on the page instead.
    const form = await client.post('/confirm-password', { __token: token, password: PASSWORD })
    assert.equal(form.location, '/confirm-password')
    assert.match((await client.get('/confirm-password')).text, /Too many attempts/)
  })

  it('the budget is per account: another user is not held back', async () => {
    await register('other@example.test')
    const client = await login('other@example.test')
    await sleep(PAST_TIMEOUT)
    assert.equal((await client.get('/secret')).status, 302)
    const ok = await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(ok.location, '/secret')
  })
})
