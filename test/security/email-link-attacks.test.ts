/**
 * Black-box attacks on the mailed e-mail links (`/email/verify/<token>`) of a generated app, each
 * with the attacker's cookie jar, the victim's, and the mails read from a real SMTP peer:
 * - A mail scanner (Safe Links, Proofpoint) that GETs and HEADs every link changes nothing: a
 *   verification link leaves the address unverified, a change link leaves it unchanged, and both
 *   links still work for their owner afterwards.
 * - An attacker who asks to move their own account to a victim's address gets nothing from the
 *   victim's scanner, nor from the victim pressing the button (logged out: asked to log in;
 *   logged in to the victim's own account: refused), and the victim can still register it.
 * - An attacker holding the password asks for an e-mail change to their own inbox; the owner's
 *   password reset, password change or "log out other devices" ends that pending change: the
 *   attacker's link no longer works, even POSTed by a session logged in to the account.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb } from '../helpers/security-kit.js'

const APP_URL = 'http://app.example.test'
const LINK = /http:\/\/app\.example\.test\/email\/verify\/([A-Za-z0-9_-]{43})\b/
const RESET = /\/change_password\/([A-Za-z0-9_-]{43})/
const NEW_PASSWORD = 'a brand new passphrase'

describe('attacks on mailed e-mail links', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex
  let counter = 0

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL } })
    applyAuthSteps(app)
    // Many registrations, logins and resets from 127.0.0.1: those budgets are not under test here.
    app.edit('config/auth.ts', (t) =>
      t
        .replace('register: { attempts: 10, minutes: 1 }', 'register: null')
        .replace('login: { attempts: 5, minutes: 1 }', 'login: null')
        .replace('reset: { attempts: 10, minutes: 1 }', 'reset: null'),
    )
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await smtp?.close()
  })

  function address(what: string): string {
    counter += 1
    return `${what}-${counter}@example.test`
  }

  /** The newest e-mail link mailed to `to` (waits for it). */
  async function linkTo(to: string): Promise<string> {
    const mail = await smtp.waitFor((m) => m.to.includes(to) && LINK.test(mailText(m.raw)), 10_000)
    return LINK.exec(mailText(mail.raw))![1]!
  }

  async function userRow(id: number): Promise<Record<string, any>> {
    return db('users').where('id', id).first()
  }

  async function idOf(email: string): Promise<number> {
    const row = await db('users').where('email', email).first()
    assert.ok(row, email)
    return row.id
  }

  /** Opens the link's page, then presses its button (a CSRF field from another page when the link's page has none). */
  async function press(client: Client, token: string): Promise<HttpResult> {
    const page = await client.get(`/email/verify/${token}`)
    if (!/name="__token"/.test(page.text)) await client.get((await client.get('/home')).status === 200 ? '/home' : '/login')
    return client.post(`/email/verify/${token}`, { __token: client.csrf() })
  }

  /** What a link scanner does: GET and HEAD without cookies, following nothing. */
  async function scan(token: string): Promise<void> {
    for (const method of ['GET', 'HEAD', 'GET']) {
      const r = await new Client(server.url).request(method, `/email/verify/${token}`, { headers: { accept: '*/*', 'user-agent': 'Mozilla/5.0 (compatible; LinkScanner/1.0)' } })
      assert.ok(r.status === 200, `${method}: ${r.status}`)
    }
  }

  async function register(email: string): Promise<Client> {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Someone', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', `registration of ${email}`)
    return client
  }

  /** A registered, verified user, logged in. */
  async function verifiedUser(email: string): Promise<Client> {
    const client = await register(email)
    assert.equal((await press(client, await linkTo(email))).location, '/home')
    assert.notEqual((await userRow(await idOf(email))).email_verified_at, null)
    return client
  }

  async function login(email: string, password = PASSWORD): Promise<Client> {
    const client = new Client(server.url)
    const r = await client.submit('/login', '/login', { email, password })
    assert.equal(r.location, '/home', `login of ${email}`)
    return client
  }

  async function askChange(client: Client, to: string): Promise<string> {
    await client.get('/account')
    const r = await client.post('/account/email', { __token: client.csrf(), form: 'email', email: to, password: PASSWORD })
    assert.equal(r.location, '/account')
    return linkTo(to)
  }

  it("a scanner's GET and HEAD of a verification link leave the address unverified; the owner's button still works", async () => {
    const email = address('scanned')
    const owner = await register(email)
    const id = await idOf(email)
    const token = await linkTo(email)
    await scan(token)
    assert.equal((await userRow(id)).email_verified_at, null, 'still unverified')
    assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'verify_email' })).length, 1, 'the link is still usable')
    assert.equal((await press(owner, token)).location, '/home')
    assert.notEqual((await userRow(id)).email_verified_at, null)
  })

  it("a scanner's GET and HEAD of a change link leave the address unchanged; the owner's button still works", async () => {
    const from = address('mover')
    const to = address('mover-new')
    const owner = await verifiedUser(from)
    const id = await idOf(from)
    const token = await askChange(owner, to)
    await scan(token)
    assert.equal((await userRow(id)).email, from, 'unchanged')
    assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'verify_email' })).length, 1, 'the link is still usable')
    assert.equal((await press(owner, token)).location, '/home')
    assert.equal((await userRow(id)).email, to)
  })

  it("an attacker moving their own account to a victim's address gets nothing from the victim's scanner or button", async () => {
    const victimEmail = address('victim')
    const attackerEmail = address('attacker')
    const attacker = await verifiedUser(attackerEmail)
    const attackerId = await idOf(attackerEmail)
    const before = await userRow(attackerId)
    const token = await askChange(attacker, victimEmail)

    // The victim's mail gateway opens the link; then the victim, puzzled, presses the button logged out.
    await scan(token)
    const victim = new Client(server.url)
    const page = await victim.get(`/email/verify/${token}`)
    assert.match(page.text, /Log in to confirm your new e-mail address/)
    assert.ok(!page.text.includes(before.email), "the attacker's account is not named")
    const pressed = await press(victim, token)
    assert.match(pressed.location ?? '', /^\/login\?next=/)
    assert.deepEqual(await userRow(attackerId), before, "the attacker's account has not moved")

    // The victim registers the address (still free) and, logged in, presses the attacker's link.
    const registered = await victim.submit('/register', '/register', { name: 'Victim', email: victimEmail, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(registered.location, '/home', 'the address was never claimed')
    const shown = await victim.get(`/email/verify/${token}`)
    assert.match(shown.text, /This link is for another account/)
    const refused = await press(victim, token)
    assert.equal(refused.status, 403)
    const json = await victim.request('POST', `/email/verify/${token}`, { json: {}, headers: { accept: 'application/json', 'x-csrf-token': victim.csrf() } })
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_FORBIDDEN')
    assert.deepEqual(await userRow(attackerId), before, "the attacker's account has not moved")
    assert.equal((await db('users').whereRaw('lower(email) = ?', [victimEmail])).length, 1, 'one account holds the address: the victim')
  })

  it('another account cannot use a change link, which stays usable for its owner, who comes back to it after logging in', async () => {
    const from = address('owner')
    const to = address('owner-new')
    const owner = await verifiedUser(from)
    const id = await idOf(from)
    const token = await askChange(owner, to)
    const other = await verifiedUser(address('other'))
    assert.equal((await press(other, token)).status, 403)
    assert.equal((await userRow(id)).email, from)

    // The owner opens the link in a browser that is logged out: log in, then back to the link's page.
    const fresh = new Client(server.url)
    const page = await fresh.get(`/email/verify/${token}`)
    const loginUrl = /href="(\/login\?next=[^"]+)"/.exec(page.text)?.[1]
    assert.ok(loginUrl, 'the page links to the login with the link as next')
    const loggedIn = await fresh.submit(loginUrl!.replace(/&amp;/g, '&'), '/login', { email: from, password: PASSWORD, next: `/email/verify/${token}` })
    assert.equal(loggedIn.location, `/email/verify/${token}`, 'back to the link')
    const shown = await fresh.get(loggedIn.location!)
    assert.match(shown.text, /<h1>Confirm your new e-mail address<\/h1>/)
    assert.equal((await fresh.post(`/email/verify/${token}`, { __token: fresh.csrf() })).location, '/home')
    assert.equal((await userRow(id)).email, to)
  })

  describe('a pending change started by an intruder with the password ends when the owner recovers', () => {
    /** The owner (logged in), the intruder (logged in elsewhere with the password), the intruder's link to their own inbox. */
    async function intruded(what: string): Promise<{ email: string; id: number; owner: Client; intruder: Client; token: string }> {
      const email = address(what)
      const owner = await verifiedUser(email)
      const intruder = await login(email)
      const token = await askChange(intruder, address(`${what}-intruder-inbox`))
      return { email, id: await idOf(email), owner, intruder, token }
    }

    /** The link is dead: its page says so and a POST by a session of the account changes nothing. */
    async function assertDead(session: Client, id: number, email: string, token: string): Promise<void> {
      const page = await session.get(`/email/verify/${token}`)
      assert.equal(page.status, 404, 'the link page says it cannot be used')
      const r = await press(session, token)
      assert.notEqual(r.location, '/home', 'the change is not applied')
      assert.equal((await userRow(id)).email, email, 'the address did not move')
      assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'verify_email' })).length, 0, 'no pending change is left')
    }

    it('ended by a password reset', async () => {
      const { email, id, token } = await intruded('reset')
      await new Client(server.url).submit('/password_reset', '/password_reset', { email })
      const mail = await smtp.waitFor((m) => m.to.includes(email) && RESET.test(mailText(m.raw)), 10_000)
      const reset = RESET.exec(mailText(mail.raw))![1]!
      const done = await new Client(server.url).submit(`/change_password/${reset}`, `/change_password/${reset}`, { password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
      assert.equal(done.location, '/login')
      await assertDead(await login(email, NEW_PASSWORD), id, email, token)
    })

    it('ended by a password change', async () => {
      const { email, id, owner, token } = await intruded('change')
      await owner.get('/account')
      const r = await owner.post('/account/password', { __token: owner.csrf(), form: 'password', current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
      assert.equal(r.location, '/account')
      await assertDead(owner, id, email, token)
    })

    it('ended by "log out other devices"', async () => {
      const { email, id, owner, intruder, token } = await intruded('others')
      assert.equal((await owner.submit('/confirm-password', '/confirm-password', { password: PASSWORD })).status, 302)
      const r = await owner.submit('/account/devices', '/account/devices/revoke-others', {})
      assert.equal(r.location, '/account/devices')
      assert.match((await intruder.get('/home')).location ?? '', /^\/login/, 'the intruder is logged out')
      await assertDead(owner, id, email, token)
    })
  })
})
