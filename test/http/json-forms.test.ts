/**
 * Black-box: every web flow as JSON, as a cookie SPA on the same site speaks to a new app (craft
 * new + craft auth + migrate): `GET /csrf-token`, then JSON bodies with `X-CSRF-TOKEN`.
 * - The whole life of an account: register (201) → verify → logout → login → two factors
 *   (enrol, 423 without a recent password, the login's 401 E_MFA_REQUIRED and the challenge) →
 *   logout → reset; every answer JSON, `{"data": ...}` with `redirect` where a page redirects.
 * - The errors: 422 with `errors` per field, 419, 401, 403 E_EMAIL_NOT_VERIFIED, 429 with Retry-After.
 * - GET pages answer their data, never a secret.
 * - Every route of `Auth.routes()` (read from `craft routes:list`), GET and POST: a JSON answer,
 *   never a redirect or an HTML page, so a new route that answers HTML fails here.
 * - `craft openapi --web` lists those routes, with their fields and answers, and validates.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Secret, TOTP } from 'otpauth'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff, setWebGuard } from '../helpers/auth-config.js'
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { PASSWORD } from '../helpers/security-kit.js'
import { validate, compileErrors } from '@readme/openapi-parser'

const APP_URL = 'http://app.example.test'
// Long enough for a confirmation's requests on a busy machine; one test waits it out.
const CONFIRM_SECONDS = 12
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A single-page app on the same site: JSON in, JSON out, the CSRF token in a header. */
class Spa {
  readonly client: Client
  token = ''

  constructor(base: string) {
    this.client = new Client(base)
  }

  async start(): Promise<this> {
    this.token = (await this.client.get('/csrf-token')).json().token
    return this
  }

  #keep(r: HttpResult): HttpResult {
    const rotated = r.headers.get('x-csrf-token')
    if (rotated) this.token = rotated
    return r
  }

  async get(path: string): Promise<HttpResult> {
    return this.#keep(await this.client.get(path, { accept: 'application/json' }))
  }

  async post(path: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<HttpResult> {
    return this.#keep(await this.client.request('POST', path, { json: body, headers: { accept: 'application/json', 'x-csrf-token': this.token, ...headers } }))
  }
}

/** The answer is JSON with `status` (never a redirect or a page); its body. */
function expectJson(r: HttpResult, status: number, what: string): any {
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/, `${what}: JSON, got ${r.status} ${r.text.slice(0, 200)}`)
  assert.equal(r.headers.get('location'), null, `${what}: no Location`)
  assert.equal(r.status, status, `${what}: ${r.text.slice(0, 300)}`)
  return r.json()
}

function codeOf(secret: string): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate()
}

describe('every web flow as JSON', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL } })
    applyAuthSteps(app)
    // Every request comes from 127.0.0.1; the login budget stays (the 429 case below).
    budgetsOff(app, ['login'])
    setWebGuard(app, { password_timeout: CONFIRM_SECONDS / 60 })
    app.edit('config/auth.ts', (text) => text.replace("'passkeys'],", "'passkeys', 'email_login'],"))
    migrate(app)
    server = await app.serve()
  })
  after(async () => {
    await app?.cleanup()
    await smtp?.close()
  })

  /** The token of the last mailed link `<APP_URL><prefix><token>` to `address`. */
  async function mailedToken(address: string, prefix: string): Promise<string> {
    const pattern = new RegExp(`${APP_URL.replaceAll('.', '\\.')}${prefix}([A-Za-z0-9_-]+)`)
    const found = await smtp.waitFor((m) => m.to.includes(address) && pattern.test(mailText(m.raw)))
    const all = smtp.messages.filter((m) => m.to.includes(address) && pattern.test(mailText(m.raw)))
    return pattern.exec(mailText((all.at(-1) ?? found).raw))![1]!
  }

  async function registered(email: string, verify = true): Promise<Spa> {
    const spa = await new Spa(server.url).start()
    const r = await spa.post('/register', { name: 'Json User', email, password: PASSWORD, password_confirmation: PASSWORD })
    expectJson(r, 201, 'register')
    if (verify) expectJson(await spa.post(`/email/verify/${await mailedToken(email, '/email/verify/')}`), 200, 'verify')
    return spa
  }

  it('walks register → verify → logout → login → two factors → logout → reset, all in JSON', async () => {
    const email = 'walk@example.test'
    const spa = await new Spa(server.url).start()

    const register = expectJson(await spa.post('/register', { name: 'Walker', email, password: PASSWORD, password_confirmation: PASSWORD }), 201, 'register')
    assert.equal(register.data.redirect, '/home')
    assert.match(register.data.message, /verify/)
    const home = expectJson(await spa.get('/home'), 200, 'home')
    assert.equal(home.data.user.email, email)
    assert.equal(home.data.user.password, undefined)
    assert.doesNotMatch(JSON.stringify(home), /secret|password|token/i)

    // Adding a way in needs a verified address.
    assert.equal(expectJson(await spa.get('/account/two-factor'), 403, 'unverified enrol').code, 'E_EMAIL_NOT_VERIFIED')
    const notice = expectJson(await spa.get('/email/verify'), 200, 'verify notice')
    assert.equal(notice.data.verified, false)
    const verified = expectJson(await spa.post(`/email/verify/${await mailedToken(email, '/email/verify/')}`), 200, 'verify')
    assert.equal(typeof verified.data.redirect, 'string')

    const logout = expectJson(await spa.post('/logout'), 200, 'logout')
    assert.deepEqual(logout.data, { message: 'You have been logged out.', redirect: '/login' })
    assert.equal(expectJson(await spa.get('/home'), 401, 'home logged out').code, 'E_UNAUTHORIZED')

    assert.equal(expectJson(await spa.post('/login', { email, password: 'wrong password!' }), 401, 'wrong').code, 'E_INVALID_CREDENTIALS')
    const login = expectJson(await spa.post('/login', { email, password: PASSWORD }), 200, 'login')
    assert.equal(login.data.redirect, '/home')

    // Two factors: the secret (JSON asks for it), a wrong code, the right one, the codes shown once.
    const setup = expectJson(await spa.get('/account/two-factor'), 200, 'two-factor page')
    assert.equal(setup.data.enabled, false)
    const secret = setup.data.secret as string
    assert.match(setup.data.otpauth_url, /^otpauth:\/\/totp\//)
    const wrong = expectJson(await spa.post('/account/two-factor', { code: codeOf(secret) === '000000' ? '111111' : '000000' }), 422, 'wrong code')
    assert.equal(wrong.code, 'E_VALIDATION')
    assert.ok(Array.isArray(wrong.errors.code))
    const enabled = expectJson(await spa.post('/account/two-factor', { code: codeOf(secret) }), 200, 'enable')
    assert.equal(enabled.data.enabled, true)
    assert.equal(enabled.data.recovery_codes, undefined, 'never in the POST answer')
    const shown = expectJson(await spa.get('/account/two-factor'), 200, 'codes page')
    assert.equal(shown.data.recovery_codes.length, 10)
    assert.equal(expectJson(await spa.get('/account/two-factor'), 200, 'again').data.recovery_codes, undefined, 'shown once')

    // A password typed too long ago: 423, then /confirm-password in JSON.
    await sleep(CONFIRM_SECONDS * 1000 + 200)
    assert.equal(expectJson(await spa.post('/account/two-factor/recovery-codes'), 423, 'stale').code, 'E_PASSWORD_CONFIRMATION_REQUIRED')
    assert.equal(expectJson(await spa.post('/confirm-password', { password: 'not it at all' }), 422, 'confirm wrong').code, 'E_VALIDATION')
    expectJson(await spa.post('/confirm-password', { password: PASSWORD }), 200, 'confirm')
    expectJson(await spa.post('/account/two-factor/recovery-codes'), 200, 'new codes')
    const codes = expectJson(await spa.get('/account/two-factor'), 200, 'new codes page').data.recovery_codes as string[]
    assert.equal(codes.length, 10)

    // The login now needs the second step: 401 E_MFA_REQUIRED, then the challenge.
    expectJson(await spa.post('/logout'), 200, 'logout 2')
    assert.equal(expectJson(await spa.post('/login', { email, password: PASSWORD }), 401, 'mfa').code, 'E_MFA_REQUIRED')
    assert.equal(expectJson(await spa.get('/home'), 401, 'not yet').code, 'E_UNAUTHORIZED')
    const challenge = expectJson(await spa.get('/two-factor-challenge'), 200, 'challenge page')
    assert.equal(challenge.data.totp, true)
    assert.equal(expectJson(await spa.post('/two-factor-challenge', { code: '12' }), 422, 'short code').code, 'E_VALIDATION')
    // (The TOTP code of this time step was used to turn it on: a recovery code answers.)
    const done = expectJson(await spa.post('/two-factor-challenge', { recovery_code: codes[0] }), 200, 'challenge')
    assert.equal(done.data.redirect, '/home')
    expectJson(await spa.get('/home'), 200, 'home after the challenge')

    // A reset, logged out.
    expectJson(await spa.post('/logout'), 200, 'logout 3')
    const asked = expectJson(await spa.post('/password_reset', { email }), 200, 'reset')
    assert.match(asked.data.message, /reset link/)
    const token = await mailedToken(email, '/change_password/')
    const mismatch = expectJson(await spa.post(`/change_password/${token}`, { password: 'a new long password', password_confirmation: 'another one' }), 422, 'mismatch')
    assert.ok(mismatch.errors.password)
    const changed = expectJson(await spa.post(`/change_password/${token}`, { password: 'a new long password', password_confirmation: 'a new long password' }), 200, 'change')
    assert.equal(changed.data.redirect, '/login')
    assert.match(changed.data.message, /password has been changed/)
    const used = expectJson(await spa.post(`/change_password/${token}`, { password: 'a third long password', password_confirmation: 'a third long password' }), 422, 'used token')
    assert.ok(used.errors.token)

    // Sign-in by e-mail for this two-factor account: the code's answer is 401 E_MFA_REQUIRED too.
    const asking = expectJson(await spa.post('/login/email', { email }), 200, 'e-mail sign-in')
    assert.equal(asking.data.redirect, '/login/email/sent')
    assert.equal(typeof asking.data.message, 'string')
    const mail = await smtp.waitFor((m) => m.to.includes(email) && /sign-in code: \d{6}/.test(m.raw))
    const code = /sign-in code: (\d{6})/.exec(mail.raw)![1]!
    assert.equal(expectJson(await spa.post('/login/email/code', { email, code }), 401, 'e-mail code').code, 'E_MFA_REQUIRED')
    expectJson(await spa.post('/two-factor-challenge', { recovery_code: codes[1] }), 200, 'challenge after the e-mail code')
    assert.equal(expectJson(await spa.get('/home'), 200, 'home').data.user.email, email)
  })

  it('a reset link used by 10 JSON requests at once changes the password once', async () => {
    const email = 'race@example.test'
    await registered(email, false)
    const spa = await new Spa(server.url).start()
    expectJson(await spa.post('/password_reset', { email }), 200, 'reset')
    const token = await mailedToken(email, '/change_password/')
    const racers = await Promise.all(Array.from({ length: 10 }, () => new Spa(server.url).start()))
    const answers = await Promise.all(racers.map((r, i) => r.post(`/change_password/${token}`, { password: `new password number ${i}`, password_confirmation: `new password number ${i}` })))
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(9).fill(422)], answers.map((a) => a.status).join(','))
    for (const a of answers) assert.match(a.headers.get('content-type') ?? '', /^application\/json/)
    const winner = answers.findIndex((a) => a.status === 200)
    const login = await new Spa(server.url).start()
    expectJson(await login.post('/login', { email, password: `new password number ${winner}` }), 200, 'the winner\'s password')
  })

  it('errors: 422 per field, 419 without the token, 429 with Retry-After', async () => {
    const spa = await new Spa(server.url).start()
    const invalid = expectJson(await spa.post('/register', { name: '', email: 'not an address', password: 'short', password_confirmation: 'other' }), 422, 'register invalid')
    assert.equal(invalid.code, 'E_VALIDATION')
    for (const field of ['name', 'email', 'password']) assert.ok(Array.isArray(invalid.errors[field]), field)

    const csrf = expectJson(await spa.post('/login', { email: 'a@example.test', password: PASSWORD }, { 'x-csrf-token': 'forged' }), 419, 'csrf')
    assert.equal(csrf.code, 'E_CSRF')
    // A JSON body is JSON whatever Accept says.
    const noAccept = await spa.client.request('POST', '/login', { json: { email: 'a@example.test', password: 'x' }, headers: { accept: '*/*', 'x-csrf-token': spa.token } })
    assert.equal(expectJson(noAccept, 401, 'JSON body, Accept */*').code, 'E_INVALID_CREDENTIALS')

    const answers: HttpResult[] = []
    for (let i = 0; i < 7; i++) answers.push(await spa.post('/login', { email: 'throttled@example.test', password: 'wrong password!' }))
    const last = answers.at(-1)!
    assert.equal(expectJson(last, 429, 'throttled').code, 'E_TOO_MANY_REQUESTS')
    assert.match(last.headers.get('retry-after') ?? '', /^\d+$/)
  })

  it('GET pages answer their data, without secrets; an HTML request still gets the page', async () => {
    const visitor = await new Spa(server.url).start()
    const login = expectJson(await visitor.get('/login'), 200, 'login page')
    assert.deepEqual(Object.keys(login.data).sort(), ['next', 'passkeys', 'remember_me'])
    assert.deepEqual(expectJson(await visitor.get('/register'), 200, 'register page'), { data: { next: null } })
    assert.equal((await visitor.client.get('/login')).headers.get('content-type')?.startsWith('text/html'), true)

    const spa = await registered('pages@example.test')
    const account = expectJson(await spa.get('/account'), 200, 'account')
    assert.equal(account.data.email, 'pages@example.test')
    assert.equal(account.data.verified, true)
    const devices = expectJson(await spa.get('/account/devices'), 200, 'devices')
    assert.ok(JSON.stringify(devices.data).length > 2)
    expectJson(await spa.get('/account/activity'), 200, 'activity')
    expectJson(await spa.get('/account/passkeys'), 200, 'passkeys')
    for (const body of [account, devices]) assert.doesNotMatch(JSON.stringify(body), /two_factor_secret|"password"|token_hash/)
    const anonymous = new Spa(server.url)
    assert.equal(expectJson(await anonymous.get('/account'), 401, 'account logged out').code, 'E_UNAUTHORIZED')
  })

  /** `[method, path]` of the routes of Auth.routes() a browser calls, from `craft routes:list`. */
  function browserCalls(): [string, string][] {
    const listed = app.craft('routes:list')
    assert.equal(listed.code, 0, listed.stderr)
    const rows = listed.stdout.split('\n').slice(1).map((line) => line.split(/\s{2,}/)).filter((r) => r.length >= 4 && /^auth\/|PersonalTokenForms/.test(r[3]!))
    // Browser navigations: the GETs of mailed links, a social provider's callback.
    const navigation = new Set([
      'GET /change_password',
      'GET /change_password/@token',
      'GET /email/verify/@token',
      'GET /account/secure/@token',
      'GET /login/email/@token',
      'GET /auth/@provider/callback',
      'POST /auth/@provider/callback',
      'GET /auth/@provider/email/@token',
      'GET /invitations/@token',
    ])
    const calls: [string, string][] = []
    for (const [methods, path] of rows) {
      for (const method of methods!.split('|')) {
        if (method === 'HEAD' || navigation.has(`${method} ${path}`)) continue
        calls.push([method, path!])
      }
    }
    assert.ok(calls.length >= 40, `routes found: ${calls.length}`)
    return calls
  }

  it('craft openapi --web adds every web form and page, which the validator accepts', async () => {
    const r = app.craft('openapi', '--web', '--output', 'openapi-web.json')
    assert.equal(r.code, 0, r.stderr)
    const document = JSON.parse(app.read('openapi-web.json'))
    const result = await validate(structuredClone(document))
    assert.ok(result.valid, result.valid ? '' : compileErrors(result))
    const listed = new Set<string>()
    for (const [path, item] of Object.entries<any>(document.paths)) for (const method of Object.keys(item)) listed.add(`${method.toUpperCase()} ${path}`)
    // Passkey ceremony endpoints answer their script, not a form: the only routes left out.
    const ceremony = /^POST \/passkeys\/(register|login)(\/options)?$/
    for (const [method, path] of browserCalls()) {
      const key = `${method} ${path.replace(/@(\w+)(:int)?/g, '{$1}')}`
      if (!ceremony.test(key)) assert.ok(listed.has(key), `${key} is in the document`)
    }
    assert.ok(listed.has('GET /csrf-token'))
    const register = document.paths['/register'].post
    assert.deepEqual(register.requestBody.content['application/json'].schema.required, ['name', 'email', 'password', 'password_confirmation'])
    assert.ok(register.responses['201'] && register.responses['422'] && register.responses['419'] && register.responses['429'])
    assert.ok(document.paths['/account/two-factor/disable'].post.responses['423'])
    assert.ok(document.paths['/account/two-factor'].post.responses['403'])
    assert.ok(document.paths['/home'].get.responses['401'])
    assert.equal(document.paths['/email/verify/{token}'].get, undefined, 'a mailed link\'s GET is a browser navigation')
    // Without --web: no web page.
    assert.equal(app.craft('openapi', '--output', 'openapi-api.json').code, 0)
    assert.equal(JSON.parse(app.read('openapi-api.json')).paths['/register'], undefined)
  })

  it('every route of Auth.routes() answers JSON to a JSON request (no redirect, no page)', async () => {
    const calls = browserCalls()
    // Leaving the account goes last.
    const last = (p: string) => (p === '/account/delete' ? 2 : p === '/logout' ? 1 : 0)
    calls.sort((a, b) => last(a[1]) - last(b[1]))

    for (const loggedIn of [false, true]) {
      const spa = loggedIn ? await registered(`walker-${Date.now()}@example.test`) : await new Spa(server.url).start()
      for (const [method, path] of calls) {
        const url = path.replace('@token', 'x'.repeat(43)).replace(/@id(:int)?/, '999999').replace('@provider', 'github')
        const r = method === 'GET' ? await spa.get(url) : await spa.post(url, {})
        const what = `${loggedIn ? 'user' : 'visitor'}: ${method} ${path}`
        assert.match(r.headers.get('content-type') ?? '', /^application\/json/, `${what}: ${r.status} ${r.text.slice(0, 120)}`)
        assert.ok(r.status < 300 || (r.status >= 400 && r.status < 500), `${what}: ${r.status} ${r.text.slice(0, 200)}`)
        const body = r.json()
        // The passkey ceremony answers what its script (and the WebAuthn library) reads.
        const ceremony = /^\/passkeys\/(register|login)(\/options)?$/.test(path)
        if (r.status >= 400) assert.match(body.code, /^E_[A-Z_]+$/, what)
        else if (!ceremony) assert.ok(Object.hasOwn(body, 'data'), `${what}: {"data": ...}, got ${r.text.slice(0, 200)}`)
      }
    }
  })
})
