/**
 * Black-box: sign-in by e-mail and the accounts it reaches, in a generated app with the JWT API
 * and `GUARDS.email_login.register` on, the mails read from a real SMTP peer.
 * - A TOTP user is sent to /two-factor-challenge after the link (and gets E_MFA_REQUIRED on the
 *   API); the login never satisfies `password.confirm`.
 * - A browser logged in as someone else is not switched; an unverified account is claimed (its
 *   password and other logins end, the page says so); a password change ends the live link and code.
 * - The API pair: `POST /api/auth/email` 202 alike for every address (422 for an invalid one),
 *   `POST /api/auth/email/verify` a JWT with amr ["email"], or 401 E_INVALID_CREDENTIALS; one
 *   code works on the web and the API, once.
 * - `register: true`: an address without an account gets the mail; its first use creates the
 *   account (name from the local part, no password, verified, `auth:registered` method email).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as OTPAuth from 'otpauth'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { startSmtpPeer } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb, decodeJwt } from '../helpers/security-kit.js'
import { APP_URL, SUBJECT, signInKit, sleep, type KitTarget } from '../helpers/email-login-kit.js'

describe('sign-in by e-mail: second factor, other users, claims, the API, register', () => {
  let app: TestApp
  let server: Server
  const t = {} as KitTarget
  const { mail, newMail, answer, confirmLink, createUser, loggedInAs } = signInKit(t)

  before(async () => {
    t.smtp = await startSmtpPeer()
    t.requests = 0
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(t.smtp.port), APP_URL } })
    applyAuthSteps(app)
    applyApiSteps(app)
    budgetsOff(app)
    app.edit('config/auth.ts', (text) =>
      text.replace("'passkeys'],", "'passkeys', 'email_login'],").replace('export const GUARDS = {', 'export const GUARDS = {\n  email_login: { minutes: 15, resend_seconds: 0.2, register: true },'),
    )
    migrate(app)
    server = await app.serve()
    t.url = server.url
    t.db = appDb(app)
  })
  after(async () => {
    await t.db?.destroy()
    await app?.cleanup()
    await t.smtp?.close()
  })
  it('a TOTP user is sent to the second step after the link, then lands on /home', async () => {
    const email = 'totp@example.test'
    await createUser(email)
    const client = new Client(t.url)
    let r = await client.submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(r.location, '/home')
    await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const page = await client.get('/account/two-factor')
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
    assert.ok(secret, page.text)
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
    r = await client.post('/account/two-factor', { __token: client.csrf(), code: totp.generate() }, { accept: 'application/json' })
    assert.equal(r.status, 200, r.text)
    const recoveryCodes = (await client.get('/account/two-factor', { accept: 'application/json' })).json().data.recovery_codes as string[]
    assert.equal(recoveryCodes.length, 10)
    const m = await newMail(email)
    const browser = new Client(t.url)
    const done = await confirmLink(browser, m.token)
    assert.equal(done.location, '/two-factor-challenge')
    assert.equal(await loggedInAs(browser), null, 'the link alone does not log in')
    await browser.get('/two-factor-challenge')
    const step = await browser.post('/two-factor-challenge', { __token: browser.csrf(), code: totp.generate({ timestamp: Date.now() + 30_000 }) })
    assert.equal(step.location, '/home', step.text)
    assert.match((await loggedInAs(browser)) ?? '', /Mail User/)
    assert.equal((await browser.get('/account/two-factor')).location, '/confirm-password', 'still no password confirmation')
    // The API: the code of a TOTP user asks for the second step.
    const api = await newMail(email)
    const mfa = await new Client(t.url).postJson('/api/auth/email/verify', { email, code: api.code })
    assert.equal(mfa.status, 401, mfa.text)
    assert.equal(mfa.json().code, 'E_MFA_REQUIRED')
    assert.ok(mfa.json().mfa_token)
    assert.equal(mfa.json().data, undefined)
    // Its second step keeps the method's amr: an e-mailed code and a second factor.
    const second = await new Client(t.url).postJson('/api/auth/two-factor', { mfa_token: mfa.json().mfa_token, recovery_code: recoveryCodes[0] })
    assert.equal(second.status, 200, second.text)
    assert.deepEqual(decodeJwt(second.json().data)[1].amr, ['email', 'otp'])
    // A password login's second step still says so.
    const pwd = await new Client(t.url).postJson('/api/auth', { username: email, password: PASSWORD })
    assert.equal(pwd.json().code, 'E_MFA_REQUIRED', pwd.text)
    const step2 = await new Client(t.url).postJson('/api/auth/two-factor', { mfa_token: pwd.json().mfa_token, recovery_code: recoveryCodes[1] })
    assert.deepEqual(decodeJwt(step2.json().data)[1].amr, ['pwd', 'otp'])
  })

  it('the API pair: 202 alike for every address, a JWT for the code, 401 for a wrong one; one code for web and API', async () => {
    const email = 'api-mail@example.test'
    await createUser(email)
    await sleep(250)
    const api = new Client(t.url)
    const known = await api.postJson('/api/auth/email', { email })
    const unknown = await api.postJson('/api/auth/email', { email: 'api-nobody@example.test' })
    assert.equal(known.status, 202, known.text)
    assert.equal(unknown.status, 202)
    assert.equal(known.text, unknown.text)
    assert.ok(known.json().message)
    const bad = await api.postJson('/api/auth/email', { email: 'nope' })
    assert.equal(bad.status, 422)
    const m = await mail(email)
    const wrong = m.code === '000000' ? '111111' : '000000'
    const refused = await api.postJson('/api/auth/email/verify', { email, code: wrong })
    assert.equal(refused.status, 401)
    assert.equal(refused.json().code, 'E_INVALID_CREDENTIALS')
    const ok = await api.postJson('/api/auth/email/verify', { email, code: m.code })
    assert.equal(ok.status, 200, ok.text)
    assert.deepEqual(decodeJwt(ok.json().data)[1].amr, ['email'])
    const again = await api.postJson('/api/auth/email/verify', { email, code: m.code })
    assert.equal(again.status, 401, 'used once')
    assert.equal((await answer(new Client(t.url), email, m.code)).location, '/login/email/sent', 'the API used the code for the web too')
    // A code mailed for the web works on the API, and then no longer on the web.
    const n = await newMail(email)
    assert.equal((await api.postJson('/api/auth/email/verify', { email, code: n.code })).status, 200)
    assert.equal((await confirmLink(new Client(t.url), n.token)).location, '/login/email')
  })

  it('a browser logged in as another user is not switched', async () => {
    const a = 'alice-mail@example.test'
    const b = 'bob-mail@example.test'
    await createUser(a)
    await createUser(b)
    const alice = new Client(t.url)
    assert.equal((await alice.submit('/login', '/login', { email: a, password: PASSWORD })).location, '/home')
    const m = await newMail(b)
    const page = await alice.get(`/login/email/${m.token}`)
    assert.match(page.text, /signed in as another user/)
    assert.doesNotMatch(page.text, new RegExp(`action="/login/email/${m.token}"`))
    const r = await alice.post(`/login/email/${m.token}`, { __token: alice.csrf() })
    assert.equal(r.location, `/login/email/${m.token}`)
    const code = await answer(alice, b, m.code)
    assert.equal(code.location, '/login/email/sent')
    assert.match((await loggedInAs(alice)) ?? '', /Mail User/)
    assert.ok(await t.db('email_login_tokens').where('email', b).first(), 'nothing was used')
  })

  it('an unverified account is claimed: its password and earlier logins end', async () => {
    const email = 'claim@example.test'
    const id = await createUser(email, false)
    const squatter = new Client(t.url)
    assert.equal((await squatter.submit('/login', '/login', { email, password: PASSWORD })).location, '/home')
    const m = await newMail(email)
    const owner = new Client(t.url)
    const r = await confirmLink(owner, m.token)
    assert.equal(r.location, '/home')
    const home = await owner.get('/home')
    assert.equal(home.status, 200)
    assert.match(home.text, /has been removed/, 'the page says the account was claimed')
    const user = await t.db('users').where('id', id).first()
    assert.ok(user.email_verified_at, 'verified')
    assert.equal(user.password, null, 'the password is removed')
    assert.equal(await loggedInAs(squatter), null, 'the earlier login ended')
    const retry = await new Client(t.url).submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(retry.location, '/login', 'the old password no longer works')
  })

  it('a password change ends the live link and code (the inventory kind email_logins)', async () => {
    const email = 'changer@example.test'
    await createUser(email)
    const m = await newMail(email)
    const client = new Client(t.url)
    assert.equal((await client.submit('/login', '/login', { email, password: PASSWORD })).location, '/home')
    const NEW = 'another long passphrase 2'
    const r = await client.submit('/account', '/account/password', { current_password: PASSWORD, password: NEW, password_confirmation: NEW })
    assert.equal(r.status, 302, r.text)
    assert.equal(await t.db('email_login_tokens').where('email', email).first(), undefined, 'the row is gone')
    assert.equal((await answer(new Client(t.url), email, m.code)).location, '/login/email/sent')
    assert.match((await new Client(t.url).get(`/login/email/${m.token}`)).text, /This link cannot be used/)
  })

  it('an address without an account gets a mail; its first use creates the account (no password, verified)', async () => {
    const email = 'newcomer@example.test'
    const browser = new Client(t.url)
    const r = await browser.submit('/login/email', '/login/email', { email })
    assert.equal(r.location, '/login/email/sent')
    let code = ''
    for (let i = 0; i < 200 && !code; i++) {
      code = t.smtp.messages.filter((m) => m.to.includes(email)).map((m) => SUBJECT.exec(m.raw)?.[2] ?? '').find(Boolean) ?? ''
      if (!code) await sleep(50)
    }
    assert.ok(code, 'a mail with a code')
    assert.equal(await t.db('users').where('email', email).first(), undefined, 'no account before the first use')
    await browser.get('/login/email/sent')
    const done = await browser.post('/login/email/code', { __token: browser.csrf(), email, code })
    assert.equal(done.location, '/home', done.text)
    const user = await t.db('users').where('email', email).first()
    assert.equal(user.name, 'newcomer')
    assert.equal(user.password, null)
    assert.ok(user.email_verified_at)
    let event: Record<string, unknown> | undefined
    for (let i = 0; i < 100 && !event; i++) {
      event = (await t.db('auth_events').where({ type: 'auth:registered', user_id: user.id })).find((e) => JSON.stringify(e).includes('email'))
      if (!event) await sleep(50)
    }
    assert.ok(event, 'auth:registered with method email')
    const password = await new Client(t.url).submit('/login', '/login', { email, password: 'anything at all here' })
    assert.equal(password.location, '/login', 'no password signs in')
  })
})
