/**
 * Black-box: changing the e-mail address (POST /account/email, `email` + `password`) in a
 * generated app, with the mails read from a real SMTP peer.
 * - Invalid input (missing, not an address, too long, the current address in any case, another
 *   account's address in any case, a wrong password) changes nothing and sends nothing: 302 back
 *   to /account with the error next to its field and the address kept (JSON: 422 field errors).
 * - A valid request mails a link to the new address and a notice to the old one, answers 302
 *   /account with "We sent a link to <new> …" (JSON: 200), and changes nothing yet. Opening the
 *   link changes nothing either; logged out, its page asks to log in and its POST goes to /login
 *   with the link as `next`. The owner's POST (once) changes and verifies the address, writes
 *   auth:email_verified and auth:email_changed (from/to) to auth_events; the new address logs
 *   in, the old one no longer; a reset link mailed to the old address before the change dies with it.
 * - A later request replaces the earlier link; a link never verifies another address.
 * - An address taken meanwhile is refused when the link is confirmed; two accounts racing for one
 *   address: exactly one gets it. 20 POSTs of one change link at once: applied once.
 * - Password guessing here is throttled by the account's `confirm` budget (5 a minute).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { startSmtpPeer, mailText, type SmtpPeer, type ReceivedMail } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb, sha256 } from '../helpers/security-kit.js'

const APP_URL = 'http://app.example.test'
const LINK = /http:\/\/app\.example\.test\/email\/verify\/([A-Za-z0-9_-]{43})\b/
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('e-mail change', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL } })
    applyAuthSteps(app)
    // Many registrations and logins from 127.0.0.1: those budgets are not under test here.
    app.edit('config/auth.ts', (t) => t.replace('register: { attempts: 10, minutes: 1 }', 'register: null').replace('login: { attempts: 5, minutes: 1 }', 'login: null'))
    // POST /account/email is served by the generated AccountController, which delegates here.
    assert.match(app.read('app/controllers/auth/AccountController.ts'), /EmailVerificationForms\.changeEmail\(ctx\)/)
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

  /** Opens the link's page, then presses its button (with a CSRF field from another page when the link's page has none). */
  async function confirm(client: Client, token: string): Promise<HttpResult> {
    const page = await client.get(`/email/verify/${token}`)
    if (!/name="__token"/.test(page.text)) await client.get((await client.get('/home')).status === 200 ? '/home' : '/login')
    return client.post(`/email/verify/${token}`, { __token: client.csrf() })
  }

  async function waitForMail(predicate: (m: ReceivedMail) => boolean): Promise<ReceivedMail> {
    return smtp.waitFor(predicate, 10_000)
  }

  /** A registered user whose address is verified (through the mailed link), logged in. */
  async function verifiedUser(email: string): Promise<Client> {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Chad Change', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', `registration of ${email}`)
    const [token] = await linksTo(email)
    assert.ok(token, `verification mail to ${email}`)
    assert.equal((await confirm(client, token)).location, '/home')
    return client
  }

  /** GETs a page with a CSRF field (the account page, else /home). */
  async function loadForm(client: Client): Promise<void> {
    const page = await client.get('/account')
    if (!/name="__token"/.test(page.text)) await client.get('/home')
  }

  async function change(client: Client, fields: Record<string, string>): Promise<HttpResult> {
    await loadForm(client)
    return client.post('/account/email', { __token: client.csrf(), form: 'email', ...fields })
  }

  async function changeJson(client: Client, json: Record<string, unknown>): Promise<HttpResult> {
    await loadForm(client)
    return client.request('POST', '/account/email', { json, headers: { accept: 'application/json', 'x-csrf-token': client.csrf() } })
  }

  async function userRow(id: number): Promise<Record<string, any>> {
    return db('users').where('id', id).first()
  }

  async function idOf(email: string): Promise<number> {
    const row = await db('users').where('email', email).first()
    assert.ok(row, email)
    return row.id
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

  async function canLogIn(email: string): Promise<boolean> {
    const r = await new Client(server.url).submit('/login', '/login', { email, password: PASSWORD })
    return r.location === '/home'
  }

  it('invalid requests change nothing and send nothing; errors go next to their field with the address kept', async () => {
    const ann = await verifiedUser('ann@example.test')
    await verifiedUser('taken@example.test')
    const id = await idOf('ann@example.test')
    const before = JSON.stringify(await userRow(id))
    const mailsBefore = smtp.messages.length

    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ password: PASSWORD }, 'email', /required/i],
      [{ email: 'not-an-address', password: PASSWORD }, 'email', /valid email/i],
      [{ email: `ann@${'abcdefghi.'.repeat(25)}test`, password: PASSWORD }, 'email', /255|valid email/],
      [{ email: ' ANN@Example.TEST ', password: PASSWORD }, 'email', /already your e-mail address/],
      [{ email: 'TAKEN@example.test', password: PASSWORD }, 'email', /already been taken/],
      [{ email: 'ann.new@example.test' }, 'password', /required/i],
      [{ email: 'ann.new@example.test', password: 'not the password' }, 'password', /password is incorrect/],
    ]
    for (const [input, field, message] of cases) {
      const r = await changeJson(ann, input)
      assert.equal(r.status, 422, JSON.stringify(input))
      assert.deepEqual(Object.keys(r.json().errors), [field], JSON.stringify(input))
      assert.match(r.json().errors[field][0], message)
    }

    // The form: 302 back to /account, the error next to the field, the address kept, never the password.
    const form = await change(ann, { email: 'TAKEN@example.test', password: PASSWORD })
    assert.equal(form.status, 302)
    assert.equal(form.location, '/account')
    const page = await ann.get('/account')
    assert.equal(page.status, 200)
    assert.match(page.text, /<p class="field-error" id="new-email-error">The email has already been taken\.<\/p>/)
    assert.match(page.text, /value="TAKEN@example\.test"/)
    assert.ok(!page.text.includes(PASSWORD), 'the password is not kept')

    await sleep(500)
    assert.equal(smtp.messages.length, mailsBefore, 'nothing was mailed')
    assert.equal(JSON.stringify(await userRow(id)), before, 'nothing changed')
    assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'verify_email' })).length, 0, 'no link was made')
  })

  it('a change mails the new address a link and the old a notice, and takes effect only when the link is opened', async () => {
    const bea = await verifiedUser('bea@example.test')
    const id = await idOf('bea@example.test')
    const r = await change(bea, { email: 'Bea.New@Example.test', password: PASSWORD })
    assert.equal(r.status, 302)
    assert.equal(r.location, '/account')
    const shown = (await bea.get('/account')).text
    assert.match(shown, /We sent a link to bea\.new@example\.test — the change takes effect when you open it\./)

    const [token] = await linksTo('bea.new@example.test')
    assert.ok(token, 'the link went to the new address')
    const notice = await waitForMail((m) => m.to.includes('bea@example.test') && /being changed/i.test(mailText(m.raw)))
    assert.match(mailText(notice.raw), /bea\.new@example\.test/)
    assert.match(mailText(notice.raw), /If this wasn't you/)
    assert.ok(!LINK.test(mailText(notice.raw)), 'the old address never gets the link')

    // Nothing changed yet: the old address still logs in, the new one does not.
    const row = await userRow(id)
    assert.equal(row.email, 'bea@example.test')
    const tokens = await db('user_tokens').where({ user_id: id, purpose: 'verify_email' })
    assert.equal(tokens.length, 1)
    assert.equal(tokens[0].email, 'bea.new@example.test')
    assert.equal(tokens[0].token_hash, sha256(token!))
    assert.ok(!JSON.stringify(tokens).includes(token!), 'the raw token is not stored')
    assert.equal(await canLogIn('bea@example.test'), true)
    assert.equal(await canLogIn('bea.new@example.test'), false)

    // A reset link mailed to the old address before the change.
    await new Client(server.url).submit('/password_reset', '/password_reset', { email: 'bea@example.test' })
    const resetMail = await waitForMail((m) => m.to.includes('bea@example.test') && /change_password\//.test(mailText(m.raw)))
    const resetToken = /\/change_password\/([A-Za-z0-9_-]{43})/.exec(mailText(resetMail.raw))![1]!

    // Opened logged out: a page asking to log in; its POST changes nothing and goes to log in.
    const elsewhere = new Client(server.url)
    const page = await elsewhere.get(`/email/verify/${token}`)
    assert.equal(page.status, 200)
    assert.match(page.text, /<h1>Log in to confirm your new e-mail address<\/h1>/)
    assert.ok(page.text.includes(`href="/login?next=%2Femail%2Fverify%2F${token}"`), 'the login comes back to the link')
    assert.ok(!page.text.includes('bea@example.test'), 'the account is not named to whoever holds the link')
    const anonymous = await confirm(elsewhere, token!)
    assert.equal(anonymous.status, 302)
    assert.equal(anonymous.location, `/login?next=${encodeURIComponent(`/email/verify/${token}`)}`)
    assert.equal((await userRow(id)).email, 'bea@example.test', 'nothing changed')
    const json = await elsewhere.request('POST', `/email/verify/${token}`, { json: {}, headers: { accept: 'application/json', 'x-csrf-token': elsewhere.csrf() } })
    assert.equal(json.status, 401)

    // The owner, logged in: the page's button changes the address, verified, once.
    const shownToOwner = await bea.get(`/email/verify/${token}`)
    assert.match(shownToOwner.text, /<h1>Confirm your new e-mail address<\/h1>/)
    assert.equal((await confirm(bea, token!)).location, '/home')
    const after = await userRow(id)
    assert.equal(after.email, 'bea.new@example.test')
    assert.notEqual(after.email_verified_at, null)
    assert.equal((await confirm(bea, token!)).location, '/email/verify', 'single use')
    assert.equal(await canLogIn('bea.new@example.test'), true)
    assert.equal(await canLogIn('bea@example.test'), false)

    // The old address is free again; someone registers it. The reset link mailed to it before the
    // change must not reset the newcomer's password.
    const newcomer = new Client(server.url)
    assert.equal((await newcomer.submit('/register', '/register', { name: 'Newcomer', email: 'bea@example.test', password: PASSWORD, password_confirmation: PASSWORD })).location, '/home')
    const stale = await new Client(server.url).submit(`/change_password/${resetToken}`, `/change_password/${resetToken}`, { password: 'a stolen new passphrase', password_confirmation: 'a stolen new passphrase' })
    assert.notEqual(stale.location, '/login', 'the old reset link died with the change')
    assert.equal(await canLogIn('bea@example.test'), true, "the newcomer's password is unchanged")

    const changed = await auditRows('auth:email_changed', id)
    assert.equal(changed.length, 1)
    assert.deepEqual({ from: JSON.parse(changed[0]!.details).from, to: JSON.parse(changed[0]!.details).to }, { from: 'bea@example.test', to: 'bea.new@example.test' })
    const verified = await auditRows('auth:email_verified', id, 2)
    assert.deepEqual(verified.map((v) => JSON.parse(v.details).email), ['bea@example.test', 'bea.new@example.test'])
  })

  it('JSON: 200 with the message and where the page would go', async () => {
    const cal = await verifiedUser('cal@example.test')
    const r = await changeJson(cal, { email: 'cal.new@example.test', password: PASSWORD })
    assert.equal(r.status, 200)
    assert.equal(r.json().data.message, 'We sent a link to cal.new@example.test — the change takes effect when you open it.')
    assert.equal(typeof r.json().data.redirect, 'string')
    assert.equal((await linksTo('cal.new@example.test')).length, 1)
  })

  it('a newer request replaces the older link; the registration link dies too; a link never verifies another address', async () => {
    const client = new Client(server.url)
    await client.submit('/register', '/register', { name: 'Dee', email: 'dee@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    const [registration] = await linksTo('dee@example.test')
    const id = await idOf('dee@example.test')
    assert.equal((await change(client, { email: 'dee.one@example.test', password: PASSWORD })).location, '/account')
    const [first] = await linksTo('dee.one@example.test')
    assert.equal((await change(client, { email: 'dee.two@example.test', password: PASSWORD })).location, '/account')
    const [second] = await linksTo('dee.two@example.test')

    // The registration link (for dee@) and the first change link (for dee.one@) no longer work.
    for (const dead of [registration, first]) {
      assert.equal((await confirm(client, dead!)).location, '/email/verify', 'a replaced link is refused')
    }
    let row = await userRow(id)
    assert.equal(row.email, 'dee@example.test')
    assert.equal(row.email_verified_at, null, 'the old link verified nothing')

    assert.equal((await confirm(client, second!)).location, '/home')
    row = await userRow(id)
    assert.equal(row.email, 'dee.two@example.test', 'the newest request wins')
    assert.notEqual(row.email_verified_at, null)
  })

  it('an address taken meanwhile is refused; two accounts racing for one address: exactly one gets it', async () => {
    const eve = await verifiedUser('eve@example.test')
    const eveId = await idOf('eve@example.test')
    assert.equal((await change(eve, { email: 'wanted@example.test', password: PASSWORD })).location, '/account')
    const [token] = await linksTo('wanted@example.test')
    // Someone registers the address (in another case) before eve opens her link.
    const other = new Client(server.url)
    assert.equal((await other.submit('/register', '/register', { name: 'Other', email: 'WANTED@example.test', password: PASSWORD, password_confirmation: PASSWORD })).location, '/home')
    const refused = await confirm(eve, token!)
    assert.equal(refused.status, 302)
    assert.notEqual(refused.location, '/home')
    assert.match((await eve.get(refused.location!)).text, /wanted@example\.test has been taken by another account/)
    assert.equal((await userRow(eveId)).email, 'eve@example.test')
    assert.equal((await auditRows('auth:email_changed', eveId, 0)).length, 0)

    // Two accounts ask for one free address and open their links at the same moment.
    const fin = await verifiedUser('fin@example.test')
    const gil = await verifiedUser('gil@example.test')
    assert.equal((await change(fin, { email: 'prize@example.test', password: PASSWORD })).location, '/account')
    assert.equal((await change(gil, { email: 'Prize@example.test', password: PASSWORD })).location, '/account')
    const links = await linksTo('prize@example.test', 2)
    assert.equal(links.length, 2)
    // Each presses both links at once (the other's is refused: not their account).
    await fin.get('/account')
    await gil.get('/account')
    const answers = await Promise.all([fin, gil].flatMap((c) => links.map((t) => c.post(`/email/verify/${t}`, { __token: c.csrf() }))))
    assert.equal(answers.filter((a) => a.location === '/home').length, 1, `locations: ${answers.map((a) => a.location ?? a.status).join(',')}`)
    const holders = await db('users').whereRaw('lower(email) = ?', ['prize@example.test'])
    assert.equal(holders.length, 1, 'one account holds the address')
    const rest = await db('users').whereIn('email', ['fin@example.test', 'gil@example.test'])
    assert.equal(rest.length, 1, 'the other keeps its own address')
  })

  it('20 simultaneous POSTs of one change link by its owner: exactly one changes the address', async () => {
    const hal = await verifiedUser('hal@example.test')
    const id = await idOf('hal@example.test')
    assert.equal((await change(hal, { email: 'hal.new@example.test', password: PASSWORD })).location, '/account')
    const [token] = await linksTo('hal.new@example.test')
    await hal.get(`/email/verify/${token}`)
    const csrf = hal.csrf()
    const answers = await Promise.all(Array.from({ length: 20 }, () => hal.post(`/email/verify/${token}`, { __token: csrf })))
    assert.equal(answers.filter((a) => a.location === '/home').length, 1, `locations: ${answers.map((a) => a.location ?? a.status).join(',')}`)
    assert.equal(answers.filter((a) => a.location === '/email/verify').length, 19, 'the others: used up')
    assert.equal((await userRow(id)).email, 'hal.new@example.test')
    await sleep(300)
    assert.equal((await auditRows('auth:email_changed', id)).length, 1)
  })

  it('password guessing is throttled: after 5 wrong passwords, even the right one is refused', async () => {
    const ida = await verifiedUser('ida@example.test')
    for (let i = 0; i < 5; i++) {
      const r = await changeJson(ida, { email: 'ida.new@example.test', password: `wrong password ${i}` })
      assert.equal(r.status, 422, `attempt ${i + 1}`)
    }
    const json = await changeJson(ida, { email: 'ida.new@example.test', password: PASSWORD })
    assert.equal(json.status, 429)
    assert.equal(json.json().code, 'E_TOO_MANY_REQUESTS')
    assert.ok(Number(json.headers.get('retry-after')) > 0)
    const form = await change(ida, { email: 'ida.new@example.test', password: PASSWORD })
    assert.equal(form.location, '/account')
    assert.match((await ida.get('/account')).text, /Too many attempts\. Please try again in \d+ seconds\./)
    await sleep(500)
    assert.equal(mailsTo('ida.new@example.test').length, 0, 'nothing sent')
    assert.equal((await db('user_tokens').where({ user_id: await idOf('ida@example.test') })).length, 0)
  })
})
