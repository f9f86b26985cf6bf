/**
 * Black-box: e-mail verification in a generated app (craft new + craft auth, the generated
 * GUARDS.features), over HTTP, with the mails read from a real SMTP peer.
 * - Registration mails `<APP_URL>/email/verify/<token>`; the table keeps only the token's SHA-256,
 *   with the address, for 60 minutes. Opening the link (GET or HEAD) changes nothing: it shows a
 *   page whose button POSTs to the same path; that POST (logged in or not) sets
 *   `email_verified_at` once, writes `auth:email_verified` to auth_events, and 302s to /home.
 * - A used, unknown, malformed or expired link changes nothing: its page is a 404 saying so; its
 *   POST a 302 to /email/verify (logged in) or /login with "This verification link is invalid or
 *   has expired.".
 * - 20 simultaneous POSTs with one link: exactly one verifies; 20 GETs and HEADs change nothing.
 * - `GET /email/verify` is the "check your inbox" page (verified users go to /home).
 * - Resending: a new link replaces the old; 6 a minute per account, the 7th refused (page: 302
 *   back with the message; JSON: 429 with a Retry-After within the minute); 20 at once send at
 *   most 6 mails.
 * - The `verified` middleware: 302 /email/verify for pages, 403 E_EMAIL_NOT_VERIFIED in JSON.
 * - A mail server that hangs or refuses never delays or fails an answer; the failure is logged.
 * - With the feature off, registration sends nothing and the routes are gone.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { startSmtpPeer, mailText, type SmtpPeer, type ReceivedMail } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb, sha256 } from '../helpers/security-kit.js'

const APP_URL = 'http://app.example.test'
const INVALID = 'This verification link is invalid or has expired.'
const LINK = /http:\/\/app\.example\.test\/email\/verify\/([A-Za-z0-9_-]{43})\b/
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('e-mail verification', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL } })
    applyAuthSteps(app)
    // Many registrations from 127.0.0.1: that budget is not under test here (the verify budget is).
    app.edit('config/auth.ts', (t) => t.replace('register: { attempts: 10, minutes: 1 }', 'register: null'))
    // A page for verified users only.
    app.edit('routes/web.ts', (t) => t.replace(/export const ROUTES = \[/, "export const ROUTES = [\n  Route.get('/members', () => 'members only').middleware(['auth', 'verified']),"))
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await smtp?.close()
  })

  function mailsTo(address: string): ReceivedMail[] {
    return smtp.messages.filter((m) => m.to.includes(address))
  }

  /** The verification links mailed to `address`, oldest first, once at least `count` arrived. */
  async function linksTo(address: string, count = 1, timeoutMs = 10_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const links = mailsTo(address).map((m) => LINK.exec(mailText(m.raw))?.[1]).filter((t): t is string => Boolean(t))
      if (links.length >= count || Date.now() > deadline) return links
      await sleep(50)
    }
  }

  async function register(email: string): Promise<Client> {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Vera Verify', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', `registration of ${email}`)
    return client
  }

  async function userRow(email: string): Promise<Record<string, any>> {
    const row = await db('users').where('email', email).first()
    assert.ok(row, `user ${email}`)
    return row
  }

  /** The flashed message the next page shows, or null. */
  async function flashed(client: Client, page: string): Promise<string | null> {
    return /role="(?:alert|status)">([^<]+)</.exec((await client.get(page)).text)?.[1]?.trim() ?? null
  }

  async function auditRows(type: string, userId: number, count = 1): Promise<Record<string, any>[]> {
    let rows: Record<string, any>[] = []
    for (let i = 0; i < 100; i++) {
      rows = await db('auth_events').where({ type, user_id: userId }).orderBy('id')
      if (rows.length >= count) break
      await sleep(50)
    }
    return rows
  }

  /** Opens the link's page, then presses its button (a page with a CSRF field when the link has none). */
  async function confirm(client: Client, token: string): Promise<HttpResult> {
    const page = await client.get(`/email/verify/${token}`)
    if (!/name="__token"/.test(page.text)) await client.get((await client.get('/home')).status === 200 ? '/home' : '/login')
    return client.post(`/email/verify/${token}`, { __token: client.csrf() })
  }

  function resendJson(client: Client): Promise<HttpResult> {
    return client.request('POST', '/email/verification-notification', { json: {}, headers: { accept: 'application/json', 'x-csrf-token': client.csrf() } })
  }

  it('craft auth wrote the controller, the page and both mails', () => {
    assert.ok(app.exists('app/controllers/auth/EmailVerificationController.ts'))
    assert.match(app.read('app/controllers/auth/EmailVerificationController.ts'), /EmailVerificationForms\.verify/)
    assert.ok(app.exists('templates/auth/verify_email.html'))
    for (const f of ['VerifyEmail', 'EmailChangedNotice']) assert.ok(app.exists(`app/mailables/${f}.ts`), f)
    for (const f of ['verify_email', 'email_change_notice']) assert.ok(app.exists(`templates/mailables/auth/${f}.html`), f)
  })

  it('registration mails a link stored only as its SHA-256; it verifies once, without a login', async () => {
    const alice = await register('alice@example.test')
    const [token] = await linksTo('alice@example.test')
    assert.ok(token, 'the verification mail arrived with a link')
    const user = await userRow('alice@example.test')
    assert.equal(user.email_verified_at, null, 'not verified before the link is opened')

    // At rest: the digest and the address, never the token itself; 60 minutes.
    const rows = await db('user_tokens').where({ user_id: user.id })
    assert.equal(rows.length, 1)
    assert.equal(rows[0].purpose, 'verify_email')
    assert.equal(rows[0].email, 'alice@example.test')
    assert.equal(rows[0].token_hash, sha256(token!))
    assert.ok(!JSON.stringify(await db('user_tokens').select('*')).includes(token!), 'the raw token is not in user_tokens')
    const lifetime = new Date(rows[0].expires_at).getTime() - new Date(rows[0].created_at).getTime()
    assert.ok(Math.abs(lifetime - 60 * 60_000) < 5_000, `expires after 60 minutes (got ${lifetime} ms)`)

    // The "check your inbox" page, with a resend form.
    const page = await alice.get('/email/verify')
    assert.equal(page.status, 200)
    assert.match(page.text, /<h1>Check your inbox<\/h1>/)
    assert.match(page.text, /alice@example\.test/)
    assert.match(page.text, /action="\/email\/verification-notification"/)
    assert.match(page.text, /name="__token"/)
    const members = await alice.get('/members')
    assert.equal(members.location, '/email/verify', 'not verified yet')

    // Opened in another browser, logged out: the page changes nothing; its button verifies (the
    // link is the proof).
    const elsewhere = new Client(server.url)
    const opened = await elsewhere.get(`/email/verify/${token}`)
    assert.equal(opened.status, 200)
    assert.equal(opened.headers.get('referrer-policy'), 'no-referrer')
    assert.equal(opened.headers.get('cache-control'), 'no-store')
    assert.match(opened.text, /<h1>Verify your e-mail address<\/h1>/)
    assert.match(opened.text, new RegExp(`<form method="POST" action="/email/verify/${token}">`))
    assert.match(opened.text, /alice@example\.test/)
    assert.equal((await userRow('alice@example.test')).email_verified_at, null, 'opening the link changed nothing')
    assert.equal((await db('user_tokens').where({ user_id: user.id })).length, 1, 'the link is still usable')
    const pressed = await elsewhere.post(`/email/verify/${token}`, { __token: elsewhere.csrf() })
    assert.equal(pressed.status, 302)
    assert.equal(pressed.location, '/home')
    assert.equal(pressed.headers.get('referrer-policy'), 'no-referrer')
    assert.notEqual((await userRow('alice@example.test')).email_verified_at, null)
    assert.equal((await db('user_tokens').where({ user_id: user.id })).length, 0, 'the link is used up')

    // Once: the second opening changes nothing and says so.
    const verifiedAt = (await userRow('alice@example.test')).email_verified_at
    const page2 = await elsewhere.get(`/email/verify/${token}`)
    assert.equal(page2.status, 404)
    assert.match(page2.text, /This link cannot be used/)
    const again = await confirm(elsewhere, token!)
    assert.equal(again.location, '/login')
    assert.equal(await flashed(elsewhere, '/login'), INVALID)
    assert.deepEqual((await userRow('alice@example.test')).email_verified_at, verifiedAt)

    // Verified: the members page opens and the notice page sends the user home.
    assert.equal((await alice.get('/members')).status, 200)
    assert.equal((await alice.get('/email/verify')).location, '/home')

    const events = await auditRows('auth:email_verified', user.id)
    assert.equal(events.length, 1, 'one auth:email_verified row')
    assert.equal(JSON.parse(events[0]!.details).email, 'alice@example.test')
    assert.ok(!JSON.stringify(events).includes(token!), 'no link in the audit row')
  })

  it('an expired, unknown or malformed link changes nothing: a 404 page; its POST goes back to /email/verify, or /login when logged out', async () => {
    const bob = await register('bob@example.test')
    const [token] = await linksTo('bob@example.test')
    const user = await userRow('bob@example.test')
    await db('user_tokens').where({ user_id: user.id }).update({ expires_at: new Date(Date.now() - 1000) })

    const page = await bob.get(`/email/verify/${token}`)
    assert.equal(page.status, 404)
    assert.match(page.text, /This link cannot be used/)
    assert.ok(page.text.includes(INVALID))
    assert.ok(!page.text.includes(`action="/email/verify/`), 'no button')
    const expired = await confirm(bob, token!)
    assert.equal(expired.location, '/email/verify')
    assert.equal(await flashed(bob, '/email/verify'), INVALID)
    for (const bad of [randomBytes(32).toString('base64url'), 'short', `${token}x`, '%00']) {
      const r = await bob.get(`/email/verify/${bad}`)
      assert.ok(r.status >= 400 && r.status < 500, `${bad}: ${r.status}`)
      const pressed = await confirm(bob, bad)
      assert.ok(pressed.status === 302 || (pressed.status >= 400 && pressed.status < 500), `${bad}: ${pressed.status}`)
      if (pressed.status === 302) assert.equal(pressed.location, '/email/verify', bad)
      const anonymous = await confirm(new Client(server.url), bad)
      if (anonymous.status === 302) assert.equal(anonymous.location, '/login', bad)
    }
    const json = await new Client(server.url).get(`/email/verify/${randomBytes(32).toString('base64url')}`, { accept: 'application/json' })
    assert.equal(json.status, 422)
    assert.deepEqual(json.json().errors, { token: [INVALID] })
    assert.equal((await userRow('bob@example.test')).email_verified_at, null, 'still unverified')
    assert.equal((await auditRows('auth:email_verified', user.id, 0)).length, 0)
  })

  it('the verified middleware: 302 /email/verify for a page, 403 E_EMAIL_NOT_VERIFIED in JSON, /login when logged out', async () => {
    const carl = await register('carl@example.test')
    const page = await carl.get('/members')
    assert.equal(page.status, 302)
    assert.equal(page.location, '/email/verify')
    const json = await carl.get('/members', { accept: 'application/json' })
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_EMAIL_NOT_VERIFIED')
    assert.match((await new Client(server.url).get('/members')).location ?? '', /^\/login\b/)
    const [token] = await linksTo('carl@example.test')
    assert.equal((await confirm(carl, token!)).location, '/home')
    assert.equal(await flashed(carl, '/home'), 'Your e-mail address has been verified.')
    const ok = await carl.get('/members')
    assert.equal(ok.status, 200)
    assert.match(ok.text, /members only/)
    assert.equal((await carl.get('/members', { accept: 'application/json' })).status, 200)
  })

  it('resending: a new link replaces the old; the 7th within the minute is refused (page and JSON)', async () => {
    const dora = await register('dora@example.test')
    const [first] = await linksTo('dora@example.test')
    const sent = await dora.submit('/email/verify', '/email/verification-notification', {})
    assert.equal(sent.status, 302)
    assert.equal(sent.location, '/email/verify')
    assert.equal(await flashed(dora, '/email/verify'), 'A new verification link has been sent to dora@example.test.')
    const links = await linksTo('dora@example.test', 2)
    assert.equal(links.length, 2)
    assert.notEqual(links[1], first)
    const user = await userRow('dora@example.test')
    assert.deepEqual((await db('user_tokens').where({ user_id: user.id })).map((r) => r.token_hash), [sha256(links[1]!)], 'only the newest link is stored')
    assert.equal((await confirm(dora, first!)).location, '/email/verify', 'the replaced link no longer works')
    assert.equal((await userRow('dora@example.test')).email_verified_at, null)

    // JSON: 200 with a message, within the budget (this is the 2nd of 6).
    await dora.get('/email/verify')
    const json = await resendJson(dora)
    assert.equal(json.status, 200)
    assert.match(json.json().data.message, /dora@example\.test/)
    assert.equal(json.json().data.redirect, '/email/verify')
    for (let i = 3; i <= 6; i++) assert.equal((await dora.submit('/email/verify', '/email/verification-notification', {})).location, '/email/verify', `resend ${i}`)
    assert.equal((await linksTo('dora@example.test', 7)).length, 7, 'the registration mail and 6 resends')

    // The 7th: 302 back with the "too many attempts" message, and nothing sent.
    const seventh = await dora.submit('/email/verify', '/email/verification-notification', {})
    assert.equal(seventh.location, '/email/verify')
    assert.match((await flashed(dora, '/email/verify')) ?? '', /^Too many attempts\. Please try again in \d+ seconds\.$/)
    await dora.get('/email/verify')
    const refused = await resendJson(dora)
    assert.equal(refused.status, 429)
    assert.equal(refused.json().code, 'E_TOO_MANY_REQUESTS')
    // The budget is 6 a minute (not an hour): the wait ends within the minute.
    const retryAfter = Number(refused.headers.get('retry-after'))
    assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After: ${retryAfter}`)
    await sleep(500)
    assert.equal(mailsTo('dora@example.test').length, 7, 'no mail over the budget')
    // The newest link still works.
    const last = (await linksTo('dora@example.test', 7))[6]!
    assert.equal((await confirm(dora, last)).location, '/home')
    // Verified: resending sends nothing and goes home.
    assert.equal((await dora.submit('/home', '/email/verification-notification', {})).location, '/home')
  })

  it('20 resends at once send at most 6 mails', async () => {
    const erin = await register('erin@example.test')
    await linksTo('erin@example.test')
    await erin.get('/email/verify')
    const answers = await Promise.all(Array.from({ length: 20 }, () => resendJson(erin)))
    const statuses = answers.map((a) => a.status)
    assert.equal(statuses.filter((s) => s === 200).length, 6, `statuses: ${statuses.join(',')}`)
    assert.equal(statuses.filter((s) => s === 429).length, 14)
    await linksTo('erin@example.test', 7)
    await sleep(500)
    assert.equal(mailsTo('erin@example.test').length, 7, 'the registration mail and at most 6 resends')
  })

  it('20 simultaneous GETs and HEADs change nothing; 20 simultaneous POSTs of one link: exactly one verifies', async () => {
    await register('fay@example.test')
    const [token] = await linksTo('fay@example.test')
    const looks = await Promise.all(Array.from({ length: 20 }, (_, i) => new Client(server.url).request(i % 2 ? 'HEAD' : 'GET', `/email/verify/${token}`)))
    assert.deepEqual([...new Set(looks.map((a) => a.status))], [200])
    assert.equal((await userRow('fay@example.test')).email_verified_at, null, 'looking verified nothing')
    const clients = Array.from({ length: 20 }, () => new Client(server.url))
    for (const client of clients) await client.get(`/email/verify/${token}`)
    const answers = await Promise.all(clients.map((client) => client.post(`/email/verify/${token}`, { __token: client.csrf() })))
    const locations = answers.map((a) => a.location)
    assert.equal(locations.filter((l) => l === '/home').length, 1, `locations: ${locations.join(',')}`)
    assert.equal(locations.filter((l) => l === '/login').length, 19)
    const user = await userRow('fay@example.test')
    assert.notEqual(user.email_verified_at, null)
    await sleep(300)
    assert.equal((await auditRows('auth:email_verified', user.id)).length, 1, 'one event')
  })

  it('a mail server that hangs or refuses never delays or fails the answer; the failure is logged', async () => {
    // A peer that accepts connections and never speaks: a mail sent there waits (in the background).
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const silentPort = (silent.address() as AddressInfo).port
    try {
      await server.stop()
      server = await app.serve({ MAIL_PORT: String(silentPort) })
      const hana = await register('hana@example.test')
      await hana.get('/email/verify')
      // Waiting for the mail would take the SMTP greeting timeout (10 s): the one request is
      // given 8 s, room for a busy machine and still short of that.
      const started = Date.now()
      const resent = await resendJson(hana)
      assert.equal(resent.status, 200)
      assert.ok(Date.now() - started < 8_000, `answered in ${Date.now() - started} ms`)
      const id = (await userRow('hana@example.test')).id
      assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'verify_email' })).length, 1, 'the link was made')
    } finally {
      for (const socket of sockets) socket.destroy()
      silent.close()
    }
    // A port nobody listens on: the answer is the same, the failure lands in the log.
    const refusing = createServer()
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve))
    const closedPort = (refusing.address() as AddressInfo).port
    await new Promise<void>((resolve) => refusing.close(() => resolve()))
    await server.stop()
    server = await app.serve({ MAIL_PORT: String(closedPort) })
    await register('ivo@example.test')
    for (let i = 0; i < 100 && !server.output().includes('auth.verify_mail_failed'); i++) await sleep(100)
    assert.match(server.output(), /auth\.verify_mail_failed/)
    assert.ok(!LINK.test(server.output()), 'the link is not in the log')
    await server.stop()
    server = await app.serve()
  })

  it('with the feature off, registration sends no link and the routes are gone', async () => {
    await server.stop()
    app.edit('config/auth.ts', (t) => t.replace("'email_verification', ", ''))
    server = await app.serve()
    await register('gus@example.test')
    await sleep(1000)
    assert.equal(mailsTo('gus@example.test').length, 0)
    assert.equal((await db('user_tokens').where({ user_id: (await userRow('gus@example.test')).id })).length, 0)
    assert.equal((await new Client(server.url).get('/email/verify')).status, 404, 'no "check your inbox" page')
    // The link route stays while `account` is on: it also verifies a changed address.
    const link = await new Client(server.url).get(`/email/verify/${randomBytes(32).toString('base64url')}`)
    assert.equal(link.status, 404)
    assert.match(link.text, /This link cannot be used/, 'the link page answers')
    app.edit('config/auth.ts', (t) => t.replace("'account', ", ''))
    await server.stop()
    server = await app.serve()
    assert.equal((await new Client(server.url).get(`/email/verify/${randomBytes(32).toString('base64url')}`)).status, 404, 'with neither feature, no link route')
  })
})
