/**
 * Black-box: the security e-mails of GUARDS.notifications and their "This wasn't me" link, in a
 * generated app (craft new + craft auth + the JWT API), over HTTP, with the mails read from a real
 * SMTP peer.
 * - A password login from a browser without the account's device cookie mails "New login to your
 *   account" (when, IP, browser, the link); the browser that registered, or one that logged in
 *   before, gets no mail when it logs in again.
 * - A password reset, a password change (account page), an e-mail change (to the former
 *   address, once the new one is verified) and an account locked by failed logins each mail a notice.
 * - The link `<APP_URL>/account/secure/<token>`: stored hashed, valid 7 days; several notices'
 *   links all work until one is used. Opening it (GET) shows a page with a button and changes
 *   nothing; the button's POST (no login needed) ends every login of the user (two logged-in
 *   browsers are sent to /login, the API token can no longer be reissued), logs the posting
 *   browser out, mails a reset link, writes auth:secured, and answers 303 to /account/secured,
 *   with Referrer-Policy: no-referrer and Cache-Control: no-store. A used, unknown or expired link
 *   answers 404 and changes nothing; 20 simultaneous POSTs of one link: exactly one secures.
 *   (test/accounts/secure-account.test.ts covers the rest of "This wasn't me".)
 * - Each switch off sends nothing for its events (and only for them); an app whose config has no
 *   `notifications` key sends none.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { startSmtpPeer, mailText, type SmtpPeer, type ReceivedMail } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb, sha256 } from '../helpers/security-kit.js'

const APP_URL = 'http://app.example.test'
const SECURE_LINK = /http:\/\/app\.example\.test\/account\/secure\/([A-Za-z0-9_-]{43})\b/
const RESET_LINK = /http:\/\/app\.example\.test\/change_password\/([A-Za-z0-9_-]{43})\b/
const VERIFY_LINK = /http:\/\/app\.example\.test\/email\/verify\/([A-Za-z0-9_-]{43})\b/
const SECURED = 'Your account is secured: every device has been logged out and we sent you a link to choose a new password.'
const INVALID = 'This link is invalid or has expired.'
const NEW_DEVICE = 'New login to your account'
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('security notifications and the "This wasn\'t me" link', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex
  let seq = 0
  let logs = ''

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL } })
    applyAuthSteps(app)
    applyApiSteps(app)
    // Many requests from 127.0.0.1: those budgets are not under test. The account budget is kept
    // (small) for the "account locked" notice; each test uses its own accounts.
    app.edit('config/auth.ts', (t) =>
      t
        .replace(/login: \{ attempts: \d+, minutes: \d+ \}/, 'login: null')
        .replace(/ip: \{ attempts: \d+, minutes: \d+ \}/, 'ip: null')
        .replace(/account: \{ attempts: \d+, minutes: \d+ \}/, 'account: { attempts: 6, minutes: 1 }')
        .replace(/register: \{ attempts: \d+, minutes: \d+ \}/, 'register: null')
        .replace(/reset: \{ attempts: \d+, minutes: \d+ \}/, 'reset: null')
        .replace(/verify: \{ attempts: \d+, minutes: \d+ \}/, 'verify: null'),
    )
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    // DUMP_SERVER=<file>: every server's output, to read after a failure.
    if (process.env.DUMP_SERVER) (await import('node:fs')).writeFileSync(process.env.DUMP_SERVER, logs + (server?.output() ?? ''))
    await db?.destroy()
    await app?.cleanup()
    await smtp?.close()
  })

  async function restart(edit: (config: string) => string): Promise<void> {
    app.edit('config/auth.ts', edit)
    await server.stop()
    logs += server.output()
    server = await app.serve()
  }

  const address = (what: string) => `${what}-${++seq}@example.test`
  const subjectOf = (m: ReceivedMail) => /^Subject: (.*)$/m.exec(m.raw)?.[1]?.trim() ?? ''
  const mailsTo = (to: string, subject?: string) => smtp.messages.filter((m) => m.to.includes(to) && (subject === undefined || subjectOf(m) === subject))

  async function waitForMails(to: string, subject: string, count = 1, timeoutMs = 10_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = mailsTo(to, subject)
      if (found.length >= count) return found
      if (Date.now() > deadline) throw new Error(`expected ${count} "${subject}" mail(s) to ${to}, got ${found.length}; all to it: ${mailsTo(to).map(subjectOf).join(' | ')}`)
      await sleep(50)
    }
  }

  /** Mails are sent in the background: "none" means none after a while. */
  async function assertNoMail(to: string, subject: string, before = 0): Promise<void> {
    await sleep(1200)
    assert.equal(mailsTo(to, subject).length, before, `unexpected "${subject}" mail to ${to}`)
  }

  /** Opens a "This wasn't me" link (GET: its page and CSRF field) and presses its button (POST). */
  async function pressSecure(token: string, client = new Client(server.url)) {
    const page = await client.get(`/account/secure/${token}`)
    if (page.status !== 200) return page
    return client.post(`/account/secure/${token}`, { __token: client.csrf() })
  }

  const secureTokenOf = (m: ReceivedMail) => {
    const token = SECURE_LINK.exec(mailText(m.raw))?.[1]
    assert.ok(token, `no "This wasn't me" link in: ${mailText(m.raw)}`)
    return token
  }

  async function register(email: string): Promise<Client> {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Sam Secure', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', `registration of ${email}`)
    return client
  }

  async function login(email: string, client = new Client(server.url), password = PASSWORD): Promise<Client> {
    const r = await client.submit('/login', '/login', { email, password })
    assert.equal(r.location, '/home', `login of ${email}`)
    return client
  }

  async function logout(client: Client): Promise<void> {
    await client.get('/home')
    assert.equal((await client.post('/logout', { __token: client.csrf() })).location, '/login')
  }

  async function userId(email: string): Promise<number> {
    const row = await db('users').where('email', email).first()
    assert.ok(row, email)
    return Number(row.id)
  }

  async function events(type: string, id: number): Promise<number> {
    return Number((await db('auth_events').where({ type, user_id: id }).count({ n: '*' }))[0]!.n)
  }

  async function waitForEvents(type: string, id: number, count: number): Promise<void> {
    for (let i = 0; i < 100 && (await events(type, id)) < count; i++) await sleep(50)
    assert.equal(await events(type, id), count, `${type} rows`)
  }

  async function loggedIn(client: Client): Promise<boolean> {
    const r = await client.get('/home')
    if (r.status === 200) return true
    assert.equal(r.location, '/login')
    return false
  }

  describe('the notices', () => {
    it('a login from a new browser mails the owner; the browser that registered, or logged in before, gets none', async () => {
      const email = address('device')
      const first = await register(email)
      await logout(first)
      await login(email, first) // the registering browser is a known device
      await assertNoMail(email, NEW_DEVICE)

      const other = new Client(server.url)
      other.extraHeaders = { 'user-agent': FIREFOX }
      await login(email, other)
      const [mail] = await waitForMails(email, NEW_DEVICE)
      const text = mailText(mail!.raw)
      assert.match(text, /device or browser that had not been used with it before/)
      assert.match(text, /Firefox 132 on Linux/)
      assert.match(text, /127\.0\.0\.1/)
      assert.match(text, /\d{4}-\d\d-\d\d \d\d:\d\d UTC/)
      assert.match(text, /This wasn't me|This wasn&#39;t me/)
      secureTokenOf(mail!)
      assert.ok(!text.includes(PASSWORD), 'the password is not in the mail')

      // That browser is known now: logging in again sends nothing.
      await logout(other)
      await login(email, other)
      // An API login (no browser) is no "new device" either.
      assert.equal((await new Client(server.url).postJson('/api/auth', { username: email, password: PASSWORD })).status, 200)
      await assertNoMail(email, NEW_DEVICE, 1)
    })

    it('a password reset mails "Your password was reset"', async () => {
      const email = address('reset')
      await register(email)
      const visitor = new Client(server.url)
      await visitor.submit('/password_reset', '/password_reset', { email })
      const [resetMail] = await waitForMails(email, 'Reset your password')
      const token = RESET_LINK.exec(mailText(resetMail!.raw))?.[1]
      assert.ok(token)
      const done = await visitor.submit(`/change_password/${token}`, `/change_password/${token}`, { password: 'a brand new passphrase', password_confirmation: 'a brand new passphrase' })
      assert.equal(done.location, '/login')
      const [notice] = await waitForMails(email, 'Your password was reset')
      assert.match(mailText(notice!.raw), /password of your account was reset/)
      secureTokenOf(notice!)
    })

    it('failed logins that lock the account mail the owner once', async () => {
      const email = address('locked')
      await register(email)
      for (let i = 0; i < 9; i++) await new Client(server.url).submit('/login', '/login', { email, password: `wrong guess ${i}` })
      const [notice] = await waitForMails(email, 'Too many failed logins to your account')
      assert.match(mailText(notice!.raw), /logins from new devices are paused/)
      secureTokenOf(notice!)
      await assertNoMail(email, 'Too many failed logins to your account', 1)
    })

    it('a password change on the account page mails "Your password was changed"', async () => {
      const email = address('change')
      const client = await register(email)
      await client.get('/account')
      const r = await client.post('/account/password', { __token: client.csrf(), form: 'password', current_password: PASSWORD, password: 'another fine passphrase', password_confirmation: 'another fine passphrase' })
      assert.equal(r.status, 302)
      const [notice] = await waitForMails(email, 'Your password was changed')
      secureTokenOf(notice!)
    })

    it('an e-mail change mails the former address once the new one is verified', async () => {
      const from = address('old')
      const to = address('new')
      const client = await register(from)
      await client.get('/account')
      const r = await client.post('/account/email', { __token: client.csrf(), form: 'email', email: to, password: PASSWORD })
      assert.equal(r.status, 302)
      const [verify] = await waitForMails(to, 'Confirm your new e-mail address')
      const token = VERIFY_LINK.exec(mailText(verify!.raw))?.[1]
      assert.ok(token, mailText(verify!.raw))
      await client.get(`/email/verify/${token}`)
      const [notice] = await waitForMails(from, 'Your e-mail address was changed')
      const text = mailText(notice!.raw)
      assert.ok(text.includes(to), 'the notice names the new address')
      assert.equal(mailsTo(to, 'Your e-mail address was changed').length, 0, 'the new address gets no notice')
      secureTokenOf(notice!)
    })
  })

  describe('the "This wasn\'t me" link', () => {
    /** An account with a notice mailed (a new-device login): its owner's browser, the new one, the link. */
    async function noticed(what: string): Promise<{ email: string; id: number; owner: Client; intruder: Client; token: string }> {
      const email = address(what)
      const owner = await register(email)
      const before = mailsTo(email, NEW_DEVICE).length
      const intruder = await login(email)
      const mails = await waitForMails(email, NEW_DEVICE, before + 1)
      return { email, id: await userId(email), owner, intruder, token: secureTokenOf(mails.at(-1)!) }
    }

    it('also cancels a pending e-mail change: the intruder\'s link to their own address no longer works', async () => {
      const from = address('moved')
      const to = address('intruder-inbox')
      const intruder = await register(from)
      await intruder.get('/account')
      const r = await intruder.post('/account/email', { __token: intruder.csrf(), form: 'email', email: to, password: PASSWORD })
      assert.equal(r.status, 302)
      const [verify] = await waitForMails(to, 'Confirm your new e-mail address')
      const changeToken = VERIFY_LINK.exec(mailText(verify!.raw))?.[1]
      assert.ok(changeToken)
      // The owner's notice at the old address carries "This wasn't me".
      const [notice] = await waitForMails(from, 'Your e-mail address is being changed')
      const secured = await pressSecure(secureTokenOf(notice!))
      assert.equal(secured.status, 303)
      await new Client(server.url).get(`/email/verify/${changeToken}`)
      const row = await db('users').where('id', await userId(from)).first()
      assert.equal(row.email, from, 'the address did not move')
      assert.equal((await db('user_tokens').where('user_id', row.id)).length, 0, 'no mailed link of the account is left')
    })

    it('is stored hashed, for 7 days', async () => {
      const { id, token } = await noticed('hashed')
      const rows = await db('user_tokens').where({ user_id: id, purpose: 'secure' })
      assert.equal(rows.length, 1)
      assert.equal(rows[0].token_hash, sha256(token))
      assert.ok(!JSON.stringify(rows).includes(token), 'the raw token is not stored')
      const days = (new Date(rows[0].expires_at).getTime() - new Date(rows[0].created_at).getTime()) / 86_400_000
      assert.ok(Math.abs(days - 7) < 0.01, `valid ${days} days`)
    })

    it('ends every login and the API token, logs this browser out, mails a reset link, once', async () => {
      const { email, id, owner, intruder, token } = await noticed('secure')
      const api = await new Client(server.url).postJson('/api/auth', { username: email, password: PASSWORD })
      assert.equal(api.status, 200)
      const jwt = api.json().data as string
      assert.ok(await loggedIn(owner))
      assert.ok(await loggedIn(intruder))
      // A third browser of the owner, logged in: it opens the link.
      const opener = await login(email)
      const resetsBefore = mailsTo(email, 'Reset your password').length

      const page = await opener.get(`/account/secure/${token}`)
      assert.equal(page.status, 200)
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer')
      assert.ok(await loggedIn(opener), 'opening the link changes nothing')
      const r = await opener.post(`/account/secure/${token}`, { __token: opener.csrf() })
      assert.equal(r.status, 303)
      assert.equal(r.location, '/account/secured')
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer')
      assert.equal(r.headers.get('cache-control'), 'no-store')
      assert.ok(r.setCookies.some((c) => /^trowel_auth=;|^trowel_auth=.*Max-Age=0/i.test(c)), `the login cookie is cleared: ${r.setCookies.join(' | ')}`)
      const done = await opener.get('/account/secured')
      assert.equal(done.status, 200)
      assert.ok(done.text.includes(SECURED), done.text)

      assert.equal(await loggedIn(owner), false, 'the owner\'s browser is logged out')
      assert.equal(await loggedIn(intruder), false, 'the other browser is logged out')
      assert.equal(await loggedIn(opener), false, 'the browser that opened the link is logged out')
      assert.equal((await db('login_tokens').where('user_id', id).count({ n: '*' }))[0]!.n == 0, true, 'no login left')
      assert.equal((await db('users').where('id', id).first()).api_token, null, 'the API token is cleared')
      assert.equal((await new Client(server.url).postJson('/api/reauth', { token: jwt })).status, 401, 'the API token cannot be reissued')
      await waitForMails(email, 'Reset your password', resetsBefore + 1)
      await waitForEvents('auth:secured', id, 1)
      assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'secure' })).length, 0)

      // Used: 404, and nothing happens again.
      const second = await new Client(server.url).get(`/account/secure/${token}`)
      assert.equal(second.status, 404)
      assert.ok(second.text.includes(INVALID))
      const replayClient = new Client(server.url)
      await replayClient.get('/login')
      assert.equal((await replayClient.post(`/account/secure/${token}`, { __token: replayClient.csrf() })).status, 404)
      await sleep(800)
      assert.equal(mailsTo(email, 'Reset your password').length, resetsBefore + 1, 'no second reset mail')
      assert.equal(await events('auth:secured', id), 1)
    })

    it('every notice\'s link works until one of them is used', async () => {
      const { email, id, token: first } = await noticed('several')
      await login(email) // another new browser: a second notice
      const mails = await waitForMails(email, NEW_DEVICE, 2)
      const second = secureTokenOf(mails[1]!)
      assert.notEqual(first, second)
      assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'secure' })).length, 2)
      assert.equal((await new Client(server.url).get(`/account/secure/${first}`)).status, 200, 'both links show their page')
      assert.equal((await pressSecure(second)).status, 303)
      assert.equal((await new Client(server.url).get(`/account/secure/${first}`)).status, 404, 'one use locks the account down; the other links are gone')
    })

    it('an expired link answers 404 and changes nothing', async () => {
      const { id, owner, token } = await noticed('expired')
      await db('user_tokens').where({ user_id: id, purpose: 'secure' }).update({ expires_at: new Date(Date.now() - 1000) })
      const r = await new Client(server.url).get(`/account/secure/${token}`)
      assert.equal(r.status, 404)
      assert.ok(r.text.includes(INVALID))
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer')
      const poster = new Client(server.url)
      await poster.get('/login')
      assert.equal((await poster.post(`/account/secure/${token}`, { __token: poster.csrf() })).status, 404)
      assert.ok(await loggedIn(owner))
      await sleep(300)
      assert.equal(await events('auth:secured', id), 0)
    })

    it('an unknown or malformed link answers 404', async () => {
      for (const bad of ['A'.repeat(43), 'short', '..%2F..%2Fetc', `${'B'.repeat(42)}*`]) {
        const r = await new Client(server.url).get(`/account/secure/${bad}`)
        assert.equal(r.status, 404, bad)
      }
    })

    it('20 simultaneous POSTs of one link: exactly one secures the account', async () => {
      const { email, id, owner, token } = await noticed('race')
      const resetsBefore = mailsTo(email, 'Reset your password').length
      const clients = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const client = new Client(server.url)
          assert.equal((await client.get(`/account/secure/${token}`)).status, 200)
          return client
        }),
      )
      const results = await Promise.all(clients.map((client) => client.post(`/account/secure/${token}`, { __token: client.csrf() })))
      const statuses = results.map((r) => r.status).sort()
      assert.deepEqual(statuses, [303, ...Array(19).fill(404)])
      assert.equal(await loggedIn(owner), false)
      await waitForMails(email, 'Reset your password', resetsBefore + 1)
      await waitForEvents('auth:secured', id, 1)
      await sleep(800)
      assert.equal(mailsTo(email, 'Reset your password').length, resetsBefore + 1, 'one reset mail')
      assert.equal(await events('auth:secured', id), 1)
    })
  })

  describe('the switches', () => {
    it('new_device off: a new browser sends nothing, a reset still does', async () => {
      await restart((t) => t.replace('new_device: true', 'new_device: false'))
      const email = address('switch-device')
      await register(email)
      await login(email)
      await assertNoMail(email, NEW_DEVICE)
      await new Client(server.url).submit('/password_reset', '/password_reset', { email })
      const [reset] = await waitForMails(email, 'Reset your password')
      const token = RESET_LINK.exec(mailText(reset!.raw))![1]!
      await new Client(server.url).submit(`/change_password/${token}`, `/change_password/${token}`, { password: 'the new one is long', password_confirmation: 'the new one is long' })
      await waitForMails(email, 'Your password was reset')
    })

    it('password_changed and account_locked off: neither sends, a new browser still does', async () => {
      await restart((t) => t.replace('new_device: false', 'new_device: true').replace('password_changed: true', 'password_changed: false').replace('account_locked: true', 'account_locked: false'))
      const email = address('switch-others')
      await register(email)
      await new Client(server.url).submit('/password_reset', '/password_reset', { email })
      const [reset] = await waitForMails(email, 'Reset your password')
      const token = RESET_LINK.exec(mailText(reset!.raw))![1]!
      const done = await new Client(server.url).submit(`/change_password/${token}`, `/change_password/${token}`, { password: 'the new one is long', password_confirmation: 'the new one is long' })
      assert.equal(done.location, '/login')
      for (let i = 0; i < 9; i++) await new Client(server.url).submit('/login', '/login', { email, password: `wrong guess ${i}` })
      await assertNoMail(email, 'Your password was reset')
      assert.equal(mailsTo(email, 'Too many failed logins to your account').length, 0)

      const other = address('switch-others')
      await register(other)
      await login(other)
      await waitForMails(other, NEW_DEVICE)
    })

    it('an app without GUARDS.notifications sends none of them', async () => {
      await restart((t) => t.replace(/\n\s*\/\*\*[^\n]*\*\/\n\s*notifications: \{[^}]*\},/, ''))
      assert.doesNotMatch(app.read('config/auth.ts'), /notifications/)
      const email = address('legacy')
      await register(email)
      await login(email)
      await new Client(server.url).submit('/password_reset', '/password_reset', { email })
      await waitForMails(email, 'Reset your password')
      await assertNoMail(email, NEW_DEVICE)
      assert.deepEqual(mailsTo(email).map(subjectOf).sort(), ['Reset your password', 'Verify your e-mail address'])
    })
  })
})
