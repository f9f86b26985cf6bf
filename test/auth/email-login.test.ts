/**
 * Black-box: sign-in by e-mail (`email_login` in GUARDS.features) in a generated app, over HTTP,
 * with the mails read from a real SMTP peer.
 * - `POST /login/email` answers 302 `/login/email/sent` alike for known and unknown addresses
 *   (status, body, cookie names); only a known address gets a mail, whose subject carries the code
 *   and whose body the code and `<APP_URL>/login/email/<token>`. The table keeps the link's
 *   SHA-256 and never the code.
 * - A link: HEAD and GET change nothing (what a mail scanner does); its POST signs in once, with a
 *   new session and the device cookie; of 10 concurrent POSTs exactly one signs in. Using the link
 *   ends the code, and the code ends the link.
 * - A code signs in once; of 10 concurrent right answers exactly one signs in; five wrong answers
 *   end it; an expired code or link is refused with the documented answers.
 * - Budgets under a burst: five answers per code, then the address's `email_code` budget (429),
 *   which only a used link clears; the per-IP `email_login` budget of requests.
 * - A TOTP user is sent to /two-factor-challenge after the link; the login never satisfies
 *   `password.confirm`.
 * - A browser logged in as someone else is not switched; an unverified account is claimed (its
 *   password and other logins end).
 * - The API pair: `POST /api/auth/email` 202 alike for every address (422, 429), `POST
 *   /api/auth/email/verify` a JWT with amr ["email"], 401 E_INVALID_CREDENTIALS, or E_MFA_REQUIRED;
 *   one code works on the web and the API, once.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import * as OTPAuth from 'otpauth'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb, decodeJwt, sha256 } from '../helpers/security-kit.js'

const APP_URL = 'http://app.example.test'
const LINK = /http:\/\/app\.example\.test\/login\/email\/([A-Za-z0-9_-]{43})\b/
const SUBJECT = /^Subject: (.+) sign-in code: (\d{6})\r?$/m
const INVALID_CODE = 'The code is invalid or has expired.'
/** Requests of POST /login/email the per-IP budget allows in the test app. */
const REQUEST_BUDGET = 60
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('sign-in by e-mail', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex
  /** POST /login/email requests made so far (the per-IP budget's count). */
  let requests = 0

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL, APP_NAME: 'Trowel Test' } })
    applyAuthSteps(app)
    applyApiSteps(app)
    // Every request comes from 127.0.0.1: the password budgets are not under test here.
    budgetsOff(app)
    app.edit('config/auth.ts', (t) =>
      t
        .replace("'passkeys'],", "'passkeys', 'email_login'],")
        .replace('throttle: {', `throttle: {\n    email_login: { attempts: ${REQUEST_BUDGET}, minutes: 60 },\n    email_code: { attempts: 8, minutes: 60 },`)
        .replace('export const GUARDS = {', 'export const GUARDS = {\n  email_login: { minutes: 15, resend_seconds: 0.2 },'),
    )
    assert.match(app.read('config/auth.ts'), /'email_login'\]/)
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await smtp?.close()
  })

  interface SignInMail {
    token: string
    code: string
    subject: string
    text: string
  }

  function mailsTo(address: string): SignInMail[] {
    return smtp.messages
      .filter((m) => m.to.includes(address) && SUBJECT.test(m.raw))
      .map((m) => {
        const text = mailText(m.raw)
        const subject = SUBJECT.exec(m.raw)
        return { token: LINK.exec(text)?.[1] ?? '', code: subject?.[2] ?? '', subject: subject?.[0] ?? '', text }
      })
  }

  /** The `count`-th sign-in mail to `address` (1-based), once it arrived. */
  async function mail(address: string, count = 1): Promise<SignInMail> {
    const deadline = Date.now() + 10_000
    for (;;) {
      const found = mailsTo(address)
      if (found.length >= count) return found[count - 1]!
      if (Date.now() > deadline) throw new Error(`no sign-in mail #${count} to ${address}`)
      await sleep(50)
    }
  }

  async function ask(address: string, client = new Client(server.url)): Promise<HttpResult> {
    requests++
    return client.submit('/login/email', '/login/email', { email: address })
  }

  /** Asks for a mail (after the resend interval) and returns it. */
  async function newMail(address: string): Promise<SignInMail> {
    const before = mailsTo(address).length
    await sleep(250)
    const r = await ask(address)
    assert.equal(r.location, '/login/email/sent')
    return mail(address, before + 1)
  }

  async function answer(client: Client, email: string, code: string): Promise<HttpResult> {
    await client.get('/login/email/sent')
    return client.post('/login/email/code', { __token: client.csrf(), email, code })
  }

  async function confirmLink(client: Client, token: string): Promise<HttpResult> {
    const page = await client.get(`/login/email/${token}`)
    assert.equal(page.status, 200)
    return client.post(`/login/email/${token}`, { __token: client.csrf() })
  }

  async function createUser(email: string, verified = true): Promise<number> {
    const c = new Client(server.url)
    const r = await c.submit('/register', '/register', { name: 'Mail User', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home')
    const row = await db('users').where('email', email).first('id')
    if (verified) await db('users').where('id', row.id).update({ email_verified_at: new Date() })
    return Number(row.id)
  }

  async function loggedInAs(client: Client): Promise<string | null> {
    const r = await client.get('/home')
    if (r.status !== 200) return null
    return r.text
  }

  it('/login offers it; a link signs in once; HEAD and GET of the link change nothing', async () => {
    const login = await new Client(server.url).get('/login')
    assert.match(login.text, /href="\/login\/email"[^>]*>E-mail me a sign-in link/)
    const email = 'link@example.test'
    const id = await createUser(email)
    const browser = new Client(server.url)
    const r = await ask(email, browser)
    assert.equal(r.status, 302)
    assert.equal(r.location, '/login/email/sent')
    const sent = await browser.get('/login/email/sent')
    assert.match(sent.text, /name="code"/)
    assert.match(sent.text, /another device/)
    const m = await mail(email)
    assert.match(m.subject, /^Subject: Trowel Test sign-in code: \d{6}/)
    assert.ok(m.token, 'the link is in the mail')
    assert.ok(m.text.includes(m.code), 'the code is in the body')
    const row = await db('email_login_tokens').where('email', email).first()
    assert.equal(row.token_hash, sha256(m.token))
    assert.equal(Number(row.user_id), id)
    assert.ok(!JSON.stringify(row).includes(m.code) || row.code_hash !== m.code, 'the code is stored only as an HMAC')
    assert.match(row.code_hash, /^[0-9a-f]{64}$/)

    // A scanner: HEAD and GET, no cookies; nothing is used and nobody is logged in.
    const scanner = new Client(server.url)
    const head = await scanner.request('HEAD', `/login/email/${m.token}`)
    assert.equal(head.status, 200)
    const page = await scanner.get(`/login/email/${m.token}`)
    assert.equal(page.status, 200)
    assert.match(page.text, /Sign in as link@example\.test\?/)
    assert.match(page.text, new RegExp(`<form method="POST" action="/login/email/${m.token}"`))
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.equal(scanner.cookies.has('trowel_auth'), false)
    assert.ok(await db('email_login_tokens').where('email', email).first(), 'GET/HEAD used nothing')

    const user = new Client(server.url)
    await user.get(`/login/email/${m.token}`)
    const sessionBefore = user.cookies.get('trowel_session')
    const done = await user.post(`/login/email/${m.token}`, { __token: user.csrf() })
    assert.equal(done.status, 302, done.text)
    assert.equal(done.location, '/home')
    assert.ok(user.cookies.has('trowel_auth'))
    assert.ok(user.cookies.has('trowel_device'), 'the device cookie is set')
    assert.notEqual(user.cookies.get('trowel_session'), sessionBefore, 'a new session')
    assert.match((await loggedInAs(user)) ?? '', /Mail User/)
    // Used: a second POST and the code are refused.
    const again = await new Client(server.url).get(`/login/email/${m.token}`)
    assert.match(again.text, /This link cannot be used/)
    assert.match(again.text, /action="\/login\/email"/)
    const replay = new Client(server.url)
    await replay.get('/login')
    const second = await replay.post(`/login/email/${m.token}`, { __token: replay.csrf() })
    assert.equal(second.location, '/login/email')
    const json = await replay.request('POST', `/login/email/${m.token}`, { form: { __token: replay.csrf() }, headers: { accept: 'application/json' } })
    assert.equal(json.status, 422)
    assert.ok(json.json().errors.token)
    const code = await answer(new Client(server.url), email, m.code)
    assert.equal(code.location, '/login/email/sent', 'the link ended the code')
  })

  it('a code signs in once and ends the link; the login never satisfies password.confirm', async () => {
    const email = 'code@example.test'
    const id = await createUser(email)
    const m = await newMail(email)
    const browser = new Client(server.url)
    const r = await answer(browser, email, m.code)
    assert.equal(r.location, '/home', r.text)
    assert.match((await loggedInAs(browser)) ?? '', /Mail User/)
    // An e-mail is not a password.
    const confirm = await browser.get('/account/two-factor')
    assert.equal(confirm.location, '/confirm-password')
    const again = await answer(new Client(server.url), email, m.code)
    assert.equal(again.location, '/login/email/sent')
    const link = await new Client(server.url).get(`/login/email/${m.token}`)
    assert.match(link.text, /This link cannot be used/, 'the code ended the link')
    let event: Record<string, unknown> | undefined
    for (let i = 0; i < 100 && !event; i++) {
      event = (await db('auth_events').where({ type: 'auth:login_succeeded', user_id: id })).find((e) => JSON.stringify(e).includes('email_code'))
      if (!event) await sleep(50)
    }
    assert.ok(event, 'auth:login_succeeded with method email_code')
  })

  it('a wrong code: 302 /login/email/sent with the field error; five wrong answers end the code', async () => {
    const email = 'wrong@example.test'
    await createUser(email)
    const m = await newMail(email)
    const wrong = m.code === '000000' ? '111111' : '000000'
    const browser = new Client(server.url)
    for (let i = 0; i < 5; i++) {
      const r = await answer(browser, email, wrong)
      assert.equal(r.status, 302)
      assert.equal(r.location, '/login/email/sent')
    }
    const page = await browser.get('/login/email/sent')
    assert.ok(page.text.includes(INVALID_CODE))
    const json = await browser.request('POST', '/login/email/code', { json: { email, code: wrong }, headers: { accept: 'application/json', 'x-csrf-token': browser.csrf() } })
    assert.equal(json.status, 422, json.text)
    const right = await answer(browser, email, m.code)
    assert.equal(right.location, '/login/email/sent', 'the sixth answer, even right, is refused')
    assert.equal(await loggedInAs(browser), null)
    // The link still works.
    assert.equal((await confirmLink(new Client(server.url), m.token)).location, '/home')
  })

  it('an expired code and link are refused', async () => {
    const email = 'expired@example.test'
    await createUser(email)
    const m = await newMail(email)
    await db('email_login_tokens').where('email', email).update({ expires_at: new Date(Date.now() - 1000) })
    assert.equal((await answer(new Client(server.url), email, m.code)).location, '/login/email/sent')
    const c = new Client(server.url)
    const page = await c.get(`/login/email/${m.token}`)
    assert.match(page.text, /This link cannot be used/)
    const r = await c.post(`/login/email/${m.token}`, { __token: c.csrf() })
    assert.equal(r.location, '/login/email')
    assert.equal(await loggedInAs(c), null)
  })

  it('known and unknown addresses get the same answer; only the known one gets a mail', async () => {
    const known = 'known@example.test'
    await createUser(known)
    await sleep(250)
    const a = await ask(known)
    const b = await ask('nobody-here@example.test')
    assert.equal(a.status, b.status)
    assert.equal(a.location, b.location)
    assert.equal(a.text, b.text)
    const names = (r: HttpResult) => r.setCookies.map((c) => c.split('=')[0]).sort()
    assert.deepEqual(names(a), names(b))
    await mail(known)
    await sleep(500)
    assert.equal(mailsTo('nobody-here@example.test').length, 0)
    // An invalid address is a field error, not a mail.
    const c = new Client(server.url)
    const bad = await c.submit('/login/email', '/login/email', { email: 'not an address' })
    assert.equal(bad.status, 302)
    assert.equal(bad.location, '/login/email')
  })

  it('of 10 concurrent POSTs of one link and 10 concurrent right codes, exactly one signs in each', async () => {
    const email = 'race@example.test'
    await createUser(email)
    let m = await newMail(email)
    const clients = Array.from({ length: 10 }, () => new Client(server.url))
    for (const c of clients) await c.get(`/login/email/${m.token}`)
    const links = await Promise.all(clients.map((c) => c.post(`/login/email/${m.token}`, { __token: c.csrf() })))
    assert.equal(links.filter((r) => r.location === '/home').length, 1, links.map((r) => r.location).join(','))
    m = await newMail(email)
    const coders = Array.from({ length: 10 }, () => new Client(server.url))
    for (const c of coders) await c.get('/login/email/sent')
    const codes = await Promise.all(coders.map((c) => c.post('/login/email/code', { __token: c.csrf(), email, code: m.code })))
    assert.equal(codes.filter((r) => r.location === '/home').length, 1, codes.map((r) => r.location).join(','))
  })

  it('budgets under a burst: five answers per code, then the address budget (429) until a link is used', async () => {
    const email = 'burst@example.test'
    await createUser(email)
    const json = (c: Client, code: string) => c.request('POST', '/login/email/code', { json: { email, code }, headers: { accept: 'application/json', 'x-csrf-token': c.csrf() } })
    const browser = new Client(server.url)
    await browser.get('/login/email/sent')
    // First code: 12 wrong answers at once; five reach the comparison (5 of the address's 8).
    let m = await newMail(email)
    let wrong = m.code === '000000' ? '111111' : '000000'
    let rs = await Promise.all(Array.from({ length: 12 }, () => json(browser, wrong)))
    assert.deepEqual(rs.map((r) => r.status), Array(12).fill(422), rs.map((r) => r.text).join('\n'))
    assert.equal(rs[0]!.json().code, 'E_VALIDATION')
    assert.equal((await json(browser, m.code)).status, 422, 'the code is ended')
    // Second code: 12 at once; 5 pass the code's budget, 3 the address's, 2 are refused 429.
    m = await newMail(email)
    wrong = m.code === '000000' ? '111111' : '000000'
    rs = await Promise.all(Array.from({ length: 12 }, () => json(browser, wrong)))
    assert.equal(rs.filter((r) => r.status === 429).length, 2, rs.map((r) => r.status).join(','))
    assert.equal(rs.filter((r) => r.status === 422).length, 10)
    // Third code: even the right one is refused now.
    m = await newMail(email)
    const refused = await json(browser, m.code)
    assert.equal(refused.status, 429)
    assert.ok(refused.headers.get('retry-after'))
    // A link clears the address's budget: codes work again.
    assert.equal((await confirmLink(new Client(server.url), m.token)).location, '/home')
    m = await newMail(email)
    const fresh = new Client(server.url)
    assert.equal((await answer(fresh, email, m.code)).location, '/home')
  })

  it('a TOTP user is sent to the second step after the link, then lands on /home', async () => {
    const email = 'totp@example.test'
    await createUser(email)
    const client = new Client(server.url)
    let r = await client.submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(r.location, '/home')
    await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const page = await client.get('/account/two-factor')
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
    assert.ok(secret, page.text)
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
    r = await client.post('/account/two-factor', { __token: client.csrf(), code: totp.generate() }, { accept: 'application/json' })
    assert.equal(r.status, 200, r.text)
    const m = await newMail(email)
    const browser = new Client(server.url)
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
    const mfa = await new Client(server.url).postJson('/api/auth/email/verify', { email, code: api.code })
    assert.equal(mfa.status, 401, mfa.text)
    assert.equal(mfa.json().code, 'E_MFA_REQUIRED')
    assert.ok(mfa.json().mfa_token)
    assert.equal(mfa.json().data, undefined)
  })

  it('the API pair: 202 alike for every address, a JWT for the code, 401 for a wrong one; one code for web and API', async () => {
    const email = 'api-mail@example.test'
    await createUser(email)
    await sleep(250)
    const api = new Client(server.url)
    requests += 2
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
    assert.equal((await answer(new Client(server.url), email, m.code)).location, '/login/email/sent', 'the API used the code for the web too')
    // A code mailed for the web works on the API, and then no longer on the web.
    const n = await newMail(email)
    assert.equal((await api.postJson('/api/auth/email/verify', { email, code: n.code })).status, 200)
    assert.equal((await confirmLink(new Client(server.url), n.token)).location, '/login/email')
  })

  it('a browser logged in as another user is not switched', async () => {
    const a = 'alice-mail@example.test'
    const b = 'bob-mail@example.test'
    await createUser(a)
    await createUser(b)
    const alice = new Client(server.url)
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
    assert.ok(await db('email_login_tokens').where('email', b).first(), 'nothing was used')
  })

  it('an unverified account is claimed: its password and earlier logins end', async () => {
    const email = 'claim@example.test'
    const id = await createUser(email, false)
    const squatter = new Client(server.url)
    assert.equal((await squatter.submit('/login', '/login', { email, password: PASSWORD })).location, '/home')
    const m = await newMail(email)
    const owner = new Client(server.url)
    const r = await confirmLink(owner, m.token)
    assert.equal(r.location, '/home')
    const home = await owner.get('/home')
    assert.equal(home.status, 200)
    assert.match(home.text, /has been removed/, 'the page says the account was claimed')
    const user = await db('users').where('id', id).first()
    assert.ok(user.email_verified_at, 'verified')
    assert.equal(user.password, null, 'the password is removed')
    assert.equal(await loggedInAs(squatter), null, 'the earlier login ended')
    const retry = await new Client(server.url).submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(retry.location, '/login', 'the old password no longer works')
  })

  it('a password change ends the live link and code (the inventory kind email_logins)', async () => {
    const email = 'changer@example.test'
    await createUser(email)
    const m = await newMail(email)
    const client = new Client(server.url)
    assert.equal((await client.submit('/login', '/login', { email, password: PASSWORD })).location, '/home')
    const NEW = 'another long passphrase 2'
    const r = await client.submit('/account', '/account/password', { current_password: PASSWORD, password: NEW, password_confirmation: NEW })
    assert.equal(r.status, 302, r.text)
    assert.equal(await db('email_login_tokens').where('email', email).first(), undefined, 'the row is gone')
    assert.equal((await answer(new Client(server.url), email, m.code)).location, '/login/email/sent')
    assert.match((await new Client(server.url).get(`/login/email/${m.token}`)).text, /This link cannot be used/)
  })

  it('the per-IP request budget holds under a burst', async () => {
    const left = REQUEST_BUDGET - requests
    assert.ok(left > 0)
    const clients = Array.from({ length: left + 10 }, () => new Client(server.url))
    for (const c of clients) await c.get('/login/email')
    const rs = await Promise.all(clients.map((c) => c.post('/login/email', { __token: c.csrf(), email: 'someone@example.test' })))
    assert.equal(rs.filter((r) => r.location === '/login/email/sent').length, left)
    assert.equal(rs.filter((r) => r.location === '/login/email').length, 10)
  })
})

describe('sign-in by e-mail with register: true', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL } })
    applyAuthSteps(app)
    budgetsOff(app)
    app.edit('config/auth.ts', (t) => t.replace("'passkeys'],", "'passkeys', 'email_login'],").replace('export const GUARDS = {', 'export const GUARDS = {\n  email_login: { register: true },'))
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await smtp?.close()
  })

  it('an address without an account gets a mail; its first use creates the account (no password, verified)', async () => {
    const email = 'newcomer@example.test'
    const browser = new Client(server.url)
    const r = await browser.submit('/login/email', '/login/email', { email })
    assert.equal(r.location, '/login/email/sent')
    let code = ''
    for (let i = 0; i < 200 && !code; i++) {
      code = smtp.messages.filter((m) => m.to.includes(email)).map((m) => SUBJECT.exec(m.raw)?.[2] ?? '').find(Boolean) ?? ''
      if (!code) await sleep(50)
    }
    assert.ok(code, 'a mail with a code')
    assert.equal(await db('users').where('email', email).first(), undefined, 'no account before the first use')
    await browser.get('/login/email/sent')
    const done = await browser.post('/login/email/code', { __token: browser.csrf(), email, code })
    assert.equal(done.location, '/home', done.text)
    const user = await db('users').where('email', email).first()
    assert.equal(user.name, 'newcomer')
    assert.equal(user.password, null)
    assert.ok(user.email_verified_at)
    let event: Record<string, unknown> | undefined
    for (let i = 0; i < 100 && !event; i++) {
      event = (await db('auth_events').where({ type: 'auth:registered', user_id: user.id })).find((e) => JSON.stringify(e).includes('email'))
      if (!event) await sleep(50)
    }
    assert.ok(event, 'auth:registered with method email')
    const password = await new Client(server.url).submit('/login', '/login', { email, password: 'anything at all here' })
    assert.equal(password.location, '/login', 'no password signs in')
  })
})
