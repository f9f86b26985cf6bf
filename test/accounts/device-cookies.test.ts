/**
 * Black-box: device cookies can be revoked. A browser that logged into an account holds a
 * `trowel_device` cookie: its attempts have their own budget (a flood from elsewhere does not lock
 * it out) and its logins send no "New login" notice. After the owner resets the password, a cookie
 * issued before is no longer a known device: the intruder's browser that logged in with the phished
 * password is counted on the account's budget again and its next login mails the owner. A cookie
 * issued after the reset is known again. Mails are read from a real SMTP peer.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { startSmtpPeer, mailText, type SmtpPeer, type ReceivedMail } from '../helpers/smtp-peer.js'
import { PASSWORD } from '../helpers/security-kit.js'

const APP_URL = 'http://app.example.test'
const RESET_LINK = /http:\/\/app\.example\.test\/change_password\/([A-Za-z0-9_-]{43})\b/
const NEW_DEVICE = 'New login to your account'
const NEW_PASSWORD = 'the owner chose a new one'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('revocable device cookies', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let seq = 0

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL, TRUST_PROXY: 'true' } })
    applyAuthSteps(app)
    // Only the account budget is under test (4 attempts a minute); the others would count this suite's requests from 127.0.0.1.
    app.edit('config/auth.ts', (t) =>
      t
        .replace(/login: \{ attempts: \d+, minutes: \d+ \}/, 'login: null')
        .replace(/ip: \{ attempts: \d+, minutes: \d+ \}/, 'ip: null')
        .replace(/account: \{ attempts: \d+, minutes: \d+ \}/, 'account: { attempts: 4, minutes: 1 }')
        .replace(/register: \{ attempts: \d+, minutes: \d+ \}/, 'register: null')
        .replace(/reset: \{ attempts: \d+, minutes: \d+ \}/, 'reset: null'),
    )
    migrate(app)
    server = await app.serve()
  })
  after(async () => {
    await app?.cleanup()
    await smtp?.close()
  })

  const address = (what: string) => `${what}-${++seq}@example.test`
  const subjectOf = (m: ReceivedMail) => /^Subject: (.*)$/m.exec(m.raw)?.[1]?.trim() ?? ''
  const mailsTo = (to: string, subject: string) => smtp.messages.filter((m) => m.to.includes(to) && subjectOf(m) === subject)

  async function waitForMails(to: string, subject: string, count: number): Promise<ReceivedMail[]> {
    const deadline = Date.now() + 10_000
    for (;;) {
      const found = mailsTo(to, subject)
      if (found.length >= count) return found
      if (Date.now() > deadline) throw new Error(`expected ${count} "${subject}" mail(s) to ${to}, got ${found.length}`)
      await sleep(50)
    }
  }

  /** Mails are sent in the background: "no new one" means none after a while. */
  async function assertMailCount(to: string, subject: string, count: number): Promise<void> {
    await sleep(1200)
    assert.equal(mailsTo(to, subject).length, count, `"${subject}" mails to ${to}`)
  }

  function browser(ip: string): Client {
    const client = new Client(server.url)
    client.extraHeaders = { 'x-forwarded-for': ip }
    return client
  }

  async function register(email: string): Promise<Client> {
    const owner = browser('10.30.0.1')
    const r = await owner.submit('/register', '/register', { name: 'Owen Owner', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home')
    return owner
  }

  async function login(client: Client, email: string, password: string): Promise<string | null | undefined> {
    return (await client.submit('/login', '/login', { email, password })).location
  }

  async function logout(client: Client): Promise<void> {
    await client.get('/home')
    assert.equal((await client.post('/logout', { __token: client.csrf() })).location, '/login')
    assert.ok(client.cookies.has('trowel_device'), 'logging out keeps the device cookie')
  }

  /** The owner resets the password through the mailed link. */
  async function ownerResets(email: string): Promise<void> {
    const before = mailsTo(email, 'Reset your password').length
    await browser('10.30.0.1').submit('/password_reset', '/password_reset', { email })
    const mails = await waitForMails(email, 'Reset your password', before + 1)
    const token = RESET_LINK.exec(mailText(mails[mails.length - 1]!.raw))![1]!
    const done = await browser('10.30.0.1').submit(`/change_password/${token}`, `/change_password/${token}`, { password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(done.location, '/login', done.text)
  }

  it('after a password reset, the intruder\'s browser is a new device again: its next login mails the owner; a cookie issued after the reset is known', async () => {
    const email = address('notice')
    await register(email)
    // The intruder logs in with the phished password: a new device, the owner is told once.
    const intruder = browser('10.30.1.1')
    assert.equal(await login(intruder, email, PASSWORD), '/home')
    await waitForMails(email, NEW_DEVICE, 1)
    await logout(intruder)
    assert.equal(await login(intruder, email, PASSWORD), '/home')
    await assertMailCount(email, NEW_DEVICE, 1)
    await logout(intruder)

    await ownerResets(email)
    // A cookie issued in the reset's second counts as revoked too: the next one is a second later.
    await sleep(1100)
    // Suppose the intruder learns the new password as well: the old cookie no longer hides the login.
    assert.equal(await login(intruder, email, NEW_PASSWORD), '/home')
    await waitForMails(email, NEW_DEVICE, 2)
    await logout(intruder)
    await sleep(1100)
    // That login issued a new cookie, after the reset: this browser is known again.
    assert.equal(await login(intruder, email, NEW_PASSWORD), '/home')
    await assertMailCount(email, NEW_DEVICE, 2)
  })

  it('after a password reset, the intruder\'s browser no longer has its own budget: a flood that locks the account locks it out too', async () => {
    const email = address('budget')
    await register(email)
    const intruder = browser('10.30.2.1')
    assert.equal(await login(intruder, email, PASSWORD), '/home')
    await logout(intruder)

    // Before the reset: others use up the account's budget; the known browser still gets in.
    for (let i = 0; i < 6; i++) await login(browser(`10.30.3.${i}`), email, `a wrong guess ${i}`)
    assert.equal(await login(browser('10.30.3.99'), email, PASSWORD), '/login', 'locked for a new browser')
    assert.equal(await login(intruder, email, PASSWORD), '/home', 'the known browser has its own budget')
    await logout(intruder)

    await ownerResets(email)
    // After the reset: the same flood, and the intruder's old cookie is counted on the account's
    // budget like any browser (refused with the right password: a wrong one would prove nothing).
    for (let i = 0; i < 6; i++) await login(browser(`10.30.4.${i}`), email, `a wrong guess ${i}`)
    assert.equal(await login(intruder, email, NEW_PASSWORD), '/login', 'the revoked cookie is locked out with everyone else')
    assert.match((await intruder.get('/login')).text, /Too many attempts/)
  })
})
