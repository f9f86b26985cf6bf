/**
 * Black-box, written as the attack: "This wasn't me" in a generated app (craft new + craft auth +
 * the JWT API), an intruder's cookie jar beside the owner's, the mails read from a real SMTP peer.
 * - An intruder logs in with the phished password, adds a passkey and turns TOTP on with their own
 *   authenticator. Opening the owner's notice link (GET, HEAD) changes nothing; its button's POST
 *   logs everyone out, removes the intruder's passkey and TOTP, keeps (and lists) the owner's
 *   older passkey, and shows the remaining sign-in methods without any address. Until the reset
 *   the phished password is refused (web: a message pointing to the mail; API: 401
 *   E_PASSWORD_RESET_REQUIRED), a wrong one fails as usual; the reset lifts it; the intruder's
 *   passkey and TOTP never work again.
 * - E-mail change undo: the notice of a completed change (to the old address) puts the account
 *   back on it, verified, and mails the reset there, never to the intruder's address; when another
 *   account took the old address meanwhile, the page says so and the reset (of the right account)
 *   still goes to the old address.
 * - A failure inside the POST's transaction leaves the link usable and nothing done.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import type { Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import type { SmtpPeer } from '../helpers/smtp-peer.js'
import { PASSWORD } from '../helpers/security-kit.js'
import { SoftAuthenticator } from '../helpers/soft-authenticator.js'
import { linkIn, startAccountApp, subjectOf, totpCode, type AccountApp } from '../helpers/account-app.js'

const SECURE_LINK = /https:\/\/trowel\.example\.test\/account\/secure\/([A-Za-z0-9_-]{43})\b/
const RESET_LINK = /https:\/\/trowel\.example\.test\/change_password\/([A-Za-z0-9_-]{43})\b/
const VERIFY_LINK = /https:\/\/trowel\.example\.test\/email\/verify\/([A-Za-z0-9_-]{43})\b/
const NEW_DEVICE = 'New login to your account'
const RESET = 'Reset your password'
const NEW_PASSWORD = 'a fresh passphrase nobody has seen'
const JSON_HEADERS = { accept: 'application/json' }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('"This wasn\'t me" recovers the account from an intruder', () => {
  let t: AccountApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex
  let seq = 0

  before(async () => {
    t = await startAccountApp({ smtp: true, api: true })
    server = t.server
    smtp = t.smtp!
    db = t.db
  })
  after(async () => {
    if (process.env.DUMP_SERVER) (await import('node:fs')).writeFileSync(process.env.DUMP_SERVER, server?.output() ?? '')
    await t?.close()
  })

  const address = (what: string) => `${what}-${++seq}@example.test`
  const mailsTo = (to: string, subject: string) => smtp.messages.filter((m) => m.to.includes(to) && subjectOf(m) === subject)
  const waitForMails = (to: string, subject: string, count = 1) => t.waitForMails(to, subject, count)

  async function userRow(id: number) {
    return db('users').where('id', id).first()
  }

  /** The owner: registered, address verified, logged in with a password confirmation. */
  async function owner(email: string): Promise<{ client: Client; id: number }> {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Olive Owner', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', 'registration')
    const id = Number((await db('users').where('email', email).first('id')).id)
    await db('users').where('id', id).update({ email_verified_at: new Date() })
    assert.equal((await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })).status, 302)
    return { client, id }
  }

  /** A new browser logged in with `password` (the intruder's, with the phished one), its password confirmed. */
  async function loginWith(email: string, password = PASSWORD): Promise<Client> {
    const client = new Client(server.url)
    const r = await client.submit('/login', '/login', { email, password })
    assert.equal(r.location, '/home', `login of ${email}`)
    assert.equal((await client.submit('/confirm-password', '/confirm-password', { password })).status, 302)
    return client
  }

  async function postJson(client: Client, path: string, body: unknown, page: string): Promise<HttpResult> {
    await client.get(page)
    return client.postJson(path, body, { ...JSON_HEADERS, 'x-csrf-token': client.csrf() })
  }

  async function addPasskey(client: Client, name: string): Promise<SoftAuthenticator> {
    const authenticator = new SoftAuthenticator()
    const options = await postJson(client, '/passkeys/register/options', {}, '/account/passkeys')
    assert.equal(options.status, 200, options.text)
    const r = await postJson(client, '/passkeys/register', { response: authenticator.attest(options.json()), name }, '/account/passkeys')
    assert.equal(r.status, 201, r.text)
    return authenticator
  }

  /** A passkey sign-in in a new browser: its status. */
  async function passkeyLogin(authenticator: SoftAuthenticator): Promise<number> {
    const guest = new Client(server.url)
    const options = await postJson(guest, '/passkeys/login/options', {}, '/login')
    assert.equal(options.status, 200, options.text)
    const r = await postJson(guest, '/passkeys/login', { response: authenticator.assert(options.json()) }, '/login')
    return r.status
  }

  /** Turns TOTP on with an authenticator app of the client's own: the secret. */
  async function enableTotp(client: Client, id: number): Promise<string> {
    const page = await client.get('/account/two-factor')
    assert.equal(page.status, 200, `GET /account/two-factor: ${page.status} ${page.location ?? ''}`)
    const secret = /<code class="secret"[^>]*>([A-Z2-7 ]+)<\/code>/.exec(page.text)?.[1]?.replaceAll(' ', '')
    assert.ok(secret, 'no secret on the page')
    const r = await client.post('/account/two-factor', { __token: client.csrf(), code: totpCode(secret) })
    assert.ok(r.status < 400, `enabling TOTP: ${r.status}`)
    assert.ok((await userRow(id)).two_factor_confirmed_at, 'TOTP is on')
    return secret
  }

  async function loggedIn(client: Client): Promise<boolean> {
    return (await client.get('/home')).status === 200
  }

  /** GETs the link's page, then presses its button: the POST's answer. */
  async function pressSecure(token: string, client = new Client(server.url)): Promise<HttpResult> {
    const page = await client.get(`/account/secure/${token}`)
    assert.equal(page.status, 200, 'the link shows its page')
    return client.post(`/account/secure/${token}`, { __token: client.csrf() })
  }

  async function loginAnswer(email: string, password: string): Promise<{ location: string | null; message: string }> {
    const client = new Client(server.url)
    const r = await client.submit('/login', '/login', { email, password })
    const page = await client.get('/login')
    return { location: r.location, message: page.text }
  }

  async function resetPassword(email: string, count: number, password = NEW_PASSWORD): Promise<void> {
    const mails = await waitForMails(email, RESET, count)
    const token = linkIn(mails.at(-1)!, RESET_LINK)
    const r = await new Client(server.url).submit(`/change_password/${token}`, `/change_password/${token}`, { password, password_confirmation: password })
    assert.equal(r.location, '/login', 'the reset worked')
  }

  it('an intruder\'s passkey and TOTP do not survive; GET and HEAD change nothing; the phished password waits for the reset', async () => {
    const email = address('victim')
    const { id } = await owner(email)
    const noticesBefore = mailsTo(email, NEW_DEVICE).length
    const intruder = await loginWith(email)
    const [notice] = (await waitForMails(email, NEW_DEVICE, noticesBefore + 1)).slice(-1)
    const token = linkIn(notice!, SECURE_LINK)
    const intruderKey = await addPasskey(intruder, 'Intruder key')
    await enableTotp(intruder, id)
    assert.equal(await passkeyLogin(intruderKey), 200, 'the intruder\'s passkey works before the recovery')

    // A mail scanner opens the link, with GET and HEAD: nothing changes.
    const scanned = await new Client(server.url).get(`/account/secure/${token}`)
    assert.equal(scanned.status, 200)
    assert.match(scanned.text, /<form method="POST" action="\/account\/secure\/[A-Za-z0-9_-]{43}">/)
    assert.equal(scanned.headers.get('referrer-policy'), 'no-referrer')
    const head = await new Client(server.url).request('HEAD', `/account/secure/${token}`)
    assert.equal(head.status, 200)
    assert.ok(await loggedIn(intruder), 'GET and HEAD log nobody out')
    assert.equal((await db('passkeys').where('user_id', id)).length, 1)
    assert.ok((await userRow(id)).two_factor_confirmed_at)
    assert.equal((await userRow(id)).password_reset_required_at, null)

    // The owner presses the button.
    const resetsBefore = mailsTo(email, RESET).length
    const ownerMailbox = new Client(server.url)
    const done = await pressSecure(token, ownerMailbox)
    assert.equal(done.status, 303)
    assert.equal(done.location, '/account/secured')
    const secured = await ownerMailbox.get('/account/secured')
    assert.equal(secured.status, 200)
    assert.match(secured.text, /Review your sign-in methods/)
    assert.doesNotMatch(secured.text, /Intruder key/)
    assert.match(secured.text, /Password<\/strong> \(reset needed\)/)
    assert.ok(!secured.text.includes(email), 'the page never shows an address')

    assert.equal(await loggedIn(intruder), false, 'the intruder is logged out')
    assert.equal(await passkeyLogin(intruderKey), 401, 'the intruder\'s passkey is gone')
    assert.equal((await userRow(id)).two_factor_confirmed_at, null, 'the intruder\'s TOTP is gone')

    // The phished password is refused until the reset; a wrong one fails as usual.
    const phished = await loginAnswer(email, PASSWORD)
    assert.equal(phished.location, '/login')
    assert.match(phished.message, /open the password reset link we e-mailed to you/)
    const wrong = await loginAnswer(email, 'not the password at all')
    assert.match(wrong.message, /The email or password is incorrect\./)
    const api = await new Client(server.url).postJson('/api/auth', { username: email, password: PASSWORD })
    assert.equal(api.status, 401)
    assert.equal(api.json().code, 'E_PASSWORD_RESET_REQUIRED')
    assert.equal(typeof api.json().message, 'string')
    const apiWrong = await new Client(server.url).postJson('/api/auth', { username: email, password: 'not the password at all' })
    assert.equal(apiWrong.status, 401)
    assert.notEqual(apiWrong.json().code, 'E_PASSWORD_RESET_REQUIRED')
    // It survives a restart.
    server = await t.restart()
    assert.equal((await new Client(server.url).postJson('/api/auth', { username: email, password: PASSWORD })).json().code, 'E_PASSWORD_RESET_REQUIRED')

    // The reset (mailed to the owner) lifts it; the intruder's TOTP is not asked for.
    await resetPassword(email, resetsBefore + 1)
    const after = await loginAnswer(email, NEW_PASSWORD)
    assert.equal(after.location, '/home', 'the new password logs in without the intruder\'s second factor')
    assert.equal((await new Client(server.url).postJson('/api/auth', { username: email, password: NEW_PASSWORD })).status, 200)
    assert.equal(await passkeyLogin(intruderKey), 401)
  })

  it('the owner\'s passkey, older than the event, is kept, listed and still signs in', async () => {
    const email = address('keeper')
    const { client: ownerJar, id } = await owner(email)
    const ownerKey = await addPasskey(ownerJar, 'Owner laptop')
    // The intruder comes later (a later second): the owner's passkey is older than the event.
    await sleep(1100)
    const noticesBefore = mailsTo(email, NEW_DEVICE).length
    const intruder = await loginWith(email)
    const token = linkIn((await waitForMails(email, NEW_DEVICE, noticesBefore + 1)).at(-1)!, SECURE_LINK)
    const mailbox = new Client(server.url)
    assert.equal((await pressSecure(token, mailbox)).status, 303)
    const secured = await mailbox.get('/account/secured')
    assert.match(secured.text, /Passkey<\/strong>: Owner laptop \(added \d{4}-\d{2}-\d{2}\)/, 'the owner\'s passkey is listed')
    assert.equal((await db('passkeys').where('user_id', id)).length, 1)
    assert.equal(await loggedIn(intruder), false)
    assert.equal(await passkeyLogin(ownerKey), 200, 'the owner\'s passkey still signs in, before the reset too')
  })

  it('a failure inside the POST leaves the link usable and nothing done', async () => {
    const email = address('rollback')
    const { id } = await owner(email)
    const before = mailsTo(email, NEW_DEVICE).length
    const intruder = await loginWith(email)
    const token = linkIn((await waitForMails(email, NEW_DEVICE, before + 1)).at(-1)!, SECURE_LINK)
    // The reset link cannot be written: the transaction fails after the revocations began.
    await db.schema.renameTable('password_resets', 'password_resets_away')
    try {
      const failed = await pressSecure(token)
      assert.equal(failed.status, 500)
    } finally {
      await db.schema.renameTable('password_resets_away', 'password_resets')
    }
    assert.ok(await loggedIn(intruder), 'nothing was ended')
    assert.equal((await userRow(id)).password_reset_required_at, null, 'the password is not locked')
    assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'secure' })).length, 1, 'the link is still usable')
    assert.equal((await pressSecure(token)).status, 303)
    assert.equal(await loggedIn(intruder), false)
  })

  describe('e-mail change undo', () => {
    /** The intruder moves the account to `to` and opens the verification link; the owner's notice at `from`. */
    async function hijackAddress(from: string, to: string, id: number): Promise<string> {
      const intruder = await loginWith(from)
      await intruder.get('/account')
      const r = await intruder.post('/account/email', { __token: intruder.csrf(), form: 'email', email: to, password: PASSWORD })
      assert.equal(r.status, 302)
      const verifyToken = linkIn((await waitForMails(to, 'Confirm your new e-mail address')).at(-1)!, VERIFY_LINK)
      // The link's page, then (where the link waits for a button) its POST from the intruder's session.
      const page = await intruder.get(`/email/verify/${verifyToken}`)
      if ((await userRow(id)).email !== to && page.status === 200) await intruder.post(`/email/verify/${verifyToken}`, { __token: intruder.csrf() })
      assert.equal((await userRow(id)).email, to, 'the intruder moved the account')
      const [changed] = await waitForMails(from, 'Your e-mail address was changed')
      return linkIn(changed!, SECURE_LINK)
    }

    it('restores the old address, verified, and mails the reset there, never to the intruder', async () => {
      const from = address('undo-owner')
      const to = address('undo-intruder')
      const { id } = await owner(from)
      const token = await hijackAddress(from, to, id)
      const mailbox = new Client(server.url)
      assert.equal((await pressSecure(token, mailbox)).status, 303)
      const page = await mailbox.get('/account/secured')
      assert.match(page.text, /uses the e-mail address this notice was sent to again/)
      assert.ok(!page.text.includes(from) && !page.text.includes(to), 'no address on the page')
      const row = await userRow(id)
      assert.equal(row.email, from, 'the old address is back')
      assert.ok(row.email_verified_at, 'and verified')
      await resetPassword(from, 1)
      await sleep(500)
      assert.equal(mailsTo(to, RESET).length, 0, 'nothing went to the intruder\'s address')
      assert.equal((await loginAnswer(from, NEW_PASSWORD)).location, '/home')
    })

    it('when another account took the old address: the page says so, the reset of this account still goes there', async () => {
      const from = address('taken-owner')
      const to = address('taken-intruder')
      const { id } = await owner(from)
      const token = await hijackAddress(from, to, id)
      // Someone registers the freed address meanwhile.
      const squatter = new Client(server.url)
      assert.equal((await squatter.submit('/register', '/register', { name: 'Sam Squatter', email: from, password: PASSWORD, password_confirmation: PASSWORD })).location, '/home')
      const squatterHash = (await db('users').where('email', from).first()).password
      const mailbox = new Client(server.url)
      assert.equal((await pressSecure(token, mailbox)).status, 303)
      const page = await mailbox.get('/account/secured')
      assert.match(page.text, /now belongs to another account/)
      assert.ok(!page.text.includes(from) && !page.text.includes(to), 'no address on the page')
      await resetPassword(from, 1)
      await sleep(500)
      assert.equal(mailsTo(to, RESET).length, 0, 'nothing went to the intruder\'s address')
      assert.notEqual((await userRow(id)).password, undefined)
      assert.equal((await db('users').where('email', from).first()).password, squatterHash, 'the other account\'s password is untouched')
      assert.equal((await new Client(server.url).postJson('/api/auth', { username: to, password: NEW_PASSWORD })).status, 200, 'the reset set this account\'s password')
    })
  })
})
