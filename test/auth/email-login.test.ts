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
 *   which only a used link clears; the per-IP `email_login` budget of t.requests.
 * (Second factor, other users, claims, the API and `register`: email-login-accounts.test.ts.)
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { startSmtpPeer } from '../helpers/smtp-peer.js'
import { appDb, sha256 } from '../helpers/security-kit.js'
import { APP_URL, signInKit, sleep, type KitTarget } from '../helpers/email-login-kit.js'

const INVALID_CODE = 'The code is invalid or has expired.'
/** Requests of POST /login/email the per-IP budget allows in the test app. */
const REQUEST_BUDGET = 60

describe('sign-in by e-mail', () => {
  let app: TestApp
  let server: Server
  const t = {} as KitTarget
  const { mailsTo, mail, ask, newMail, answer, confirmLink, createUser, loggedInAs } = signInKit(t)

  before(async () => {
    t.smtp = await startSmtpPeer()
    t.requests = 0
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(t.smtp.port), APP_URL, APP_NAME: 'Trowel Test' } })
    applyAuthSteps(app)
    // Every request comes from 127.0.0.1: the password budgets are not under test here.
    budgetsOff(app)
    app.edit('config/auth.ts', (text) =>
      text
        .replace("'passkeys'],", "'passkeys', 'email_login'],")
        .replace('throttle: {', `throttle: {\n    email_login: { attempts: ${REQUEST_BUDGET}, minutes: 60 },\n    email_code: { attempts: 8, minutes: 60 },`)
        .replace('export const GUARDS = {', 'export const GUARDS = {\n  email_login: { minutes: 15, resend_seconds: 0.2 },'),
    )
    assert.match(app.read('config/auth.ts'), /'email_login'\]/)
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

  it('/login offers it; a link signs in once; HEAD and GET of the link change nothing', async () => {
    const login = await new Client(t.url).get('/login')
    assert.match(login.text, /href="\/login\/email"[^>]*>E-mail me a sign-in link/)
    const email = 'link@example.test'
    const id = await createUser(email)
    const browser = new Client(t.url)
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
    const row = await t.db('email_login_tokens').where('email', email).first()
    assert.equal(row.token_hash, sha256(m.token))
    assert.equal(Number(row.user_id), id)
    assert.ok(!JSON.stringify(row).includes(m.code) || row.code_hash !== m.code, 'the code is stored only as an HMAC')
    assert.match(row.code_hash, /^[0-9a-f]{64}$/)

    // A scanner: HEAD and GET, no cookies; nothing is used and nobody is logged in.
    const scanner = new Client(t.url)
    const head = await scanner.request('HEAD', `/login/email/${m.token}`)
    assert.equal(head.status, 200)
    const page = await scanner.get(`/login/email/${m.token}`)
    assert.equal(page.status, 200)
    assert.match(page.text, /Sign in as link@example\.test\?/)
    assert.match(page.text, new RegExp(`<form method="POST" action="/login/email/${m.token}"`))
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.equal(scanner.cookies.has('trowel_auth'), false)
    assert.ok(await t.db('email_login_tokens').where('email', email).first(), 'GET/HEAD used nothing')

    const user = new Client(t.url)
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
    const again = await new Client(t.url).get(`/login/email/${m.token}`)
    assert.match(again.text, /This link cannot be used/)
    assert.match(again.text, /action="\/login\/email"/)
    const replay = new Client(t.url)
    await replay.get('/login')
    const second = await replay.post(`/login/email/${m.token}`, { __token: replay.csrf() })
    assert.equal(second.location, '/login/email')
    const json = await replay.request('POST', `/login/email/${m.token}`, { form: { __token: replay.csrf() }, headers: { accept: 'application/json' } })
    assert.equal(json.status, 422)
    assert.ok(json.json().errors.token)
    const code = await answer(new Client(t.url), email, m.code)
    assert.equal(code.location, '/login/email/sent', 'the link ended the code')
  })

  it('a code signs in once and ends the link; the login never satisfies password.confirm', async () => {
    const email = 'code@example.test'
    const id = await createUser(email)
    const m = await newMail(email)
    const browser = new Client(t.url)
    const r = await answer(browser, email, m.code)
    assert.equal(r.location, '/home', r.text)
    assert.match((await loggedInAs(browser)) ?? '', /Mail User/)
    // An e-mail is not a password.
    const confirm = await browser.get('/account/two-factor')
    assert.equal(confirm.location, '/confirm-password')
    const again = await answer(new Client(t.url), email, m.code)
    assert.equal(again.location, '/login/email/sent')
    const link = await new Client(t.url).get(`/login/email/${m.token}`)
    assert.match(link.text, /This link cannot be used/, 'the code ended the link')
    let event: Record<string, unknown> | undefined
    for (let i = 0; i < 100 && !event; i++) {
      event = (await t.db('auth_events').where({ type: 'auth:login_succeeded', user_id: id })).find((e) => JSON.stringify(e).includes('email_code'))
      if (!event) await sleep(50)
    }
    assert.ok(event, 'auth:login_succeeded with method email_code')
  })

  it('a wrong code: 302 /login/email/sent with the field error; five wrong answers end the code', async () => {
    const email = 'wrong@example.test'
    await createUser(email)
    const m = await newMail(email)
    const wrong = m.code === '000000' ? '111111' : '000000'
    const browser = new Client(t.url)
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
    assert.equal((await confirmLink(new Client(t.url), m.token)).location, '/home')
  })

  it('an expired code and link are refused', async () => {
    const email = 'expired@example.test'
    await createUser(email)
    const m = await newMail(email)
    await t.db('email_login_tokens').where('email', email).update({ expires_at: new Date(Date.now() - 1000) })
    assert.equal((await answer(new Client(t.url), email, m.code)).location, '/login/email/sent')
    const c = new Client(t.url)
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
    const c = new Client(t.url)
    const bad = await c.submit('/login/email', '/login/email', { email: 'not an address' })
    assert.equal(bad.status, 302)
    assert.equal(bad.location, '/login/email')
  })

  it('of 10 concurrent POSTs of one link and 10 concurrent right codes, exactly one signs in each', async () => {
    const email = 'race@example.test'
    await createUser(email)
    let m = await newMail(email)
    const clients = Array.from({ length: 10 }, () => new Client(t.url))
    for (const c of clients) await c.get(`/login/email/${m.token}`)
    const links = await Promise.all(clients.map((c) => c.post(`/login/email/${m.token}`, { __token: c.csrf() })))
    assert.equal(links.filter((r) => r.location === '/home').length, 1, links.map((r) => r.location).join(','))
    m = await newMail(email)
    const coders = Array.from({ length: 10 }, () => new Client(t.url))
    for (const c of coders) await c.get('/login/email/sent')
    const codes = await Promise.all(coders.map((c) => c.post('/login/email/code', { __token: c.csrf(), email, code: m.code })))
    assert.equal(codes.filter((r) => r.location === '/home').length, 1, codes.map((r) => r.location).join(','))
  })

  it('budgets under a burst: five answers per code, then the address budget (429) until a link is used', async () => {
    const email = 'burst@example.test'
    await createUser(email)
    const json = (c: Client, code: string) => c.request('POST', '/login/email/code', { json: { email, code }, headers: { accept: 'application/json', 'x-csrf-token': c.csrf() } })
    const browser = new Client(t.url)
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
    assert.equal((await confirmLink(new Client(t.url), m.token)).location, '/home')
    m = await newMail(email)
    const fresh = new Client(t.url)
    assert.equal((await answer(fresh, email, m.code)).location, '/home')
  })

  it('the per-IP request budget holds under a burst', async () => {
    const left = REQUEST_BUDGET - t.requests
    assert.ok(left > 0)
    const clients = Array.from({ length: left + 10 }, () => new Client(t.url))
    for (const c of clients) await c.get('/login/email')
    const rs = await Promise.all(clients.map((c) => c.post('/login/email', { __token: c.csrf(), email: 'someone@example.test' })))
    assert.equal(rs.filter((r) => r.location === '/login/email/sent').length, left)
    assert.equal(rs.filter((r) => r.location === '/login/email').length, 10)
  })
})
