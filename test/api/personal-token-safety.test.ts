/**
 * Black-box, written as the attacks: personal access tokens as a way back into an account.
 * - Someone who registered a future victim's address (unverified) cannot leave a token behind:
 *   302 /email/verify on the page, 403 E_EMAIL_NOT_VERIFIED in JSON, before any password prompt.
 * - A stolen session cookie (no recent password) cannot mint one: 302 /confirm-password, JSON 423
 *   E_PASSWORD_CONFIRMATION_REQUIRED; a wrong password does not help.
 * - For a user with a second factor, a login that gave none recently (here: one made before TOTP
 *   was turned on) steps up on /two-factor-challenge first (JSON 403 E_MFA_REQUIRED).
 * - A token made with the phished password mails the owner (SMTP peer) "A personal access token
 *   was created" with a "This wasn't me" link, which ends that token.
 * - The form and JSON default to 90 days; "never" only when chosen.
 * - POST /account/tokens/revoke-all: CSRF, JSON 200 / redirect back, every token of the user ends
 *   (and only theirs), concurrent requests end each token once.
 * - A password change and a reset keep personal tokens (scripts keep working); revoke-all ends them.
 * - craft token:create --expires takes 90d, 12h, 30m (a bare number is minutes).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import * as OTPAuth from 'otpauth'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { startSmtpPeer, mailText, type SmtpPeer, type ReceivedMail } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb } from '../helpers/security-kit.js'
import { clearOfStepEdge } from '../helpers/totp-step.js'

const APP_URL = 'http://app.example.test'
const SECURE_PATH = /http:\/\/app\.example\.test(\/account\/secure\/[A-Za-z0-9_-]{43})\b/
const RESET_LINK = /http:\/\/app\.example\.test\/change_password\/([A-Za-z0-9_-]{43})\b/
const FIND_TOKEN = /trw_\d+_[A-Za-z0-9]{46}/g
const CREATED = 'A personal access token was created for your account'
const DAY_MS = 86_400_000

function totp(secret: string, ahead = 0): string {
  const generator = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
  return generator.generate({ timestamp: Date.now() + ahead * 30_000 })
}

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),
]
`

describe('personal access tokens: who may create one, and what ends them', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex
  let seq = 0

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_URL } })
    applyAuthSteps(app)
    applyApiSteps(app, { apiRoutes: API_ROUTES })
    app.edit('config/auth.ts', (t) =>
      t
        .replace(/login: \{ attempts: \d+, minutes: \d+ \}/, 'login: null')
        .replace(/ip: \{ attempts: \d+, minutes: \d+ \}/, 'ip: null')
        .replace(/register: \{ attempts: \d+, minutes: \d+ \}/, 'register: null')
        .replace(/reset: \{ attempts: \d+, minutes: \d+ \}/, 'reset: null'),
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

  const address = (what: string) => `${what}-${++seq}@example.test`
  const api = (token: string) => fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${token}` } })
  const subjectOf = (m: ReceivedMail) => /^Subject: (.*)$/m.exec(m.raw)?.[1]?.trim() ?? ''
  const mailsTo = (to: string, subject: string) => smtp.messages.filter((m) => m.to.includes(to) && subjectOf(m) === subject)
  const tokensOf = async (email: string) => db('personal_access_tokens').whereIn('user_id', db('users').select('id').where('email', email))

  async function waitForMail(to: string, subject: string): Promise<ReceivedMail> {
    return smtp.waitFor((m) => m.to.includes(to) && subjectOf(m) === subject)
  }

  async function register(email: string, verified = true): Promise<Client> {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Pat Owner', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', `registration of ${email}`)
    if (verified) await db('users').where('email', email).update({ email_verified_at: new Date() })
    return client
  }

  async function login(email: string, client = new Client(server.url)): Promise<Client> {
    const r = await client.submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(r.location, '/home', `login of ${email}`)
    return client
  }

  /** A verified account, its registering browser having just typed its password (password.confirm). */
  async function confirmed(email: string): Promise<Client> {
    const client = await register(email)
    const r = await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(r.status, 302, r.text)
    assert.notEqual(r.location, '/confirm-password', 'password confirmed')
    return client
  }

  /** A second jar holding a copy of `victim`'s cookies (a stolen session). */
  function steal(victim: Client): Client {
    const thief = new Client(server.url)
    for (const [k, v] of victim.cookies) thief.cookies.set(k, v)
    return thief
  }

  /** Creates a token on the page (the jar must have typed its password recently); its value. */
  async function createOnPage(client: Client, fields: Record<string, string>): Promise<string> {
    const r = await client.submit('/account/tokens', '/account/tokens', fields)
    assert.equal(r.status, 302, r.text)
    assert.equal(r.location, '/account/tokens')
    const found = (await client.get('/account/tokens')).text.match(FIND_TOKEN) ?? []
    assert.equal(found.length, 1)
    return found[0]!
  }

  async function createJson(client: Client, body: Record<string, unknown>) {
    await client.get('/account/tokens')
    return client.request('POST', '/account/tokens', { json: body, headers: { accept: 'application/json', 'x-csrf-token': client.csrf() } })
  }

  it('an unverified account (a pre-hijacked address) cannot create a token: /email/verify before any password prompt, 403 in JSON', async () => {
    const email = address('unverified')
    const squatter = await register(email, false) // a bare session too: verification is asked first
    const page = await squatter.submit('/account/tokens', '/account/tokens', { name: 'back door', expires: 'none' })
    assert.equal(page.status, 302)
    assert.equal(page.location, '/email/verify')
    await squatter.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const again = await squatter.submit('/account/tokens', '/account/tokens', { name: 'back door', expires: 'none' })
    assert.equal(again.location, '/email/verify', 'a typed password does not replace a verified address')
    const json = await createJson(squatter, { name: 'back door' })
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_EMAIL_NOT_VERIFIED')
    assert.equal((await tokensOf(email)).length, 0)
    // The page still lists (and can revoke) tokens; its create form points to verification instead.
    const list = await squatter.get('/account/tokens')
    assert.equal(list.status, 200)
    assert.match(list.text, /href="\/email\/verify"/)
    assert.doesNotMatch(list.text, /<form method="POST" action="\/account\/tokens" /)
  })

  it('a stolen session cookie cannot mint a token: /confirm-password (JSON 423), and a wrong password does not help', async () => {
    const email = address('bare')
    await register(email)
    // A browser restored by "remember me" has typed no password (registering and logging in both
    // count as typing it): its cookies are what the thief takes.
    const remembered = new Client(server.url)
    await remembered.submit('/login', '/login', { email, password: PASSWORD, remember: '1' })
    const victim = new Client(server.url)
    victim.cookies.set('trowel_remember', remembered.cookies.get('trowel_remember')!)
    assert.equal((await victim.get('/home')).status, 200)
    const thief = steal(victim)
    const page = await thief.submit('/account/tokens', '/account/tokens', { name: 'exfil', abilities: '*', expires: 'none' })
    assert.equal(page.status, 302)
    assert.equal(page.location, '/confirm-password')
    const json = await createJson(thief, { name: 'exfil', abilities: '*', expires: 'none' })
    assert.equal(json.status, 423)
    assert.equal(json.json().code, 'E_PASSWORD_CONFIRMATION_REQUIRED')
    const guess = await thief.submit('/confirm-password', '/confirm-password', { password: 'not the password at all' })
    assert.equal(guess.status, 302)
    assert.equal((await thief.submit('/account/tokens', '/account/tokens', { name: 'exfil' })).location, '/confirm-password')
    assert.equal((await tokensOf(email)).length, 0, 'no token was created')
    assert.equal(mailsTo(email, CREATED).length, 0)
  })

  it('a user with a second factor: a login that gave none recently steps up before minting (JSON 403 E_MFA_REQUIRED)', async () => {
    const email = address('mfa')
    const owner = await confirmed(email)
    // A browser logged in with the password alone, before the owner turned TOTP on elsewhere.
    const browser = await login(email)
    const page = await owner.get('/account/two-factor')
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
    assert.ok(secret, page.text)
    await clearOfStepEdge()
    const enabled = await owner.post('/account/two-factor', { __token: owner.csrf(), code: totp(secret, -1) })
    assert.ok([200, 302].includes(enabled.status), enabled.text)

    const r = await browser.submit('/account/tokens', '/account/tokens', { name: 'no factor' })
    assert.equal(r.status, 302)
    assert.equal(r.location, '/two-factor-challenge')
    const json = await createJson(browser, { name: 'no factor' })
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_MFA_REQUIRED')
    assert.equal((await tokensOf(email)).length, 0)

    await browser.get('/account/tokens')
    await browser.post('/account/tokens', { __token: browser.csrf(), name: 'no factor' }, { referer: `${server.url}/account/tokens` })
    await browser.get('/two-factor-challenge')
    const answered = await browser.post('/two-factor-challenge', { __token: browser.csrf(), code: totp(secret) })
    assert.equal(answered.location, '/account/tokens', 'back to the page after the step-up')
    const token = await createOnPage(browser, { name: 'after the factor' })
    assert.equal((await api(token)).status, 200)
    // The owner's own session gave the factor when enrolling: it passes.
    await createOnPage(owner, { name: 'enrolling session' })
  })

  it('a token made with a phished password mails the owner; "This wasn\'t me" ends it', async () => {
    const email = address('phished')
    await register(email)
    const intruder = await login(email) // a password login counts as a typed password
    const token = await createOnPage(intruder, { name: 'totally legit', abilities: '*', expires: '365' })
    assert.equal((await api(token)).status, 200)
    const mail = await waitForMail(email, CREATED)
    const text = mailText(mail.raw)
    assert.match(text, /named &quot;totally legit&quot;|named "totally legit"/)
    assert.match(text, /127\.0\.0\.1/)
    assert.doesNotMatch(text, FIND_TOKEN, 'the token itself is never mailed')
    const path = SECURE_PATH.exec(text)?.[1]
    assert.ok(path, `no "This wasn't me" link in: ${text}`)
    // The owner follows the link; where it shows a confirmation page, its button is pressed.
    const owner = new Client(server.url)
    const opened = await owner.get(path)
    if (opened.status === 200 && opened.text.includes(`action="${path}"`)) {
      const done = await owner.post(path, { __token: owner.csrf() })
      assert.ok([302, 303].includes(done.status), `the secure POST answered ${done.status}`)
    } else {
      assert.equal(opened.status, 200)
    }
    assert.equal((await api(token)).status, 401, "the intruder's token no longer answers")
    assert.equal((await tokensOf(email)).length, 0)
  })

  it('the form preselects 90 days and JSON without an expiry gets 90 days; "never" only when chosen', async () => {
    const email = address('expiry')
    const owner = await confirmed(email)
    const page = await owner.get('/account/tokens')
    assert.match(page.text, /<option value="90" selected>/)
    await owner.submit('/account/tokens', '/account/tokens', { name: 'no expiry field' })
    const viaJson = await createJson(owner, { name: 'json default' })
    assert.equal(viaJson.status, 201, viaJson.text)
    assert.match(viaJson.json().data.token, /^trw_\d+_/)
    const never = await createJson(owner, { name: 'json never', expires: 'none' })
    assert.equal(never.status, 201, never.text)
    assert.equal(never.json().data.expires_at, null)
    const bad = await createJson(owner, { name: 'json bad', expires: 'forever' })
    assert.equal(bad.status, 422)
    const rows = await tokensOf(email)
    assert.equal(rows.length, 3)
    for (const row of rows.filter((r) => r.name !== 'json never')) {
      const days = (new Date(row.expires_at).getTime() - Date.now()) / DAY_MS
      assert.ok(days > 89.9 && days < 90.1, `${row.name} expires in ${days} days`)
    }
    assert.equal(rows.find((r) => r.name === 'json never').expires_at, null)
  })

  it('POST /account/tokens/revoke-all: CSRF, back to the page, every token of the user ends and no one else\'s', async () => {
    const email = address('revoke-all')
    const owner = await confirmed(email)
    const other = address('bystander')
    const bystander = await confirmed(other)
    const mine = [await createOnPage(owner, { name: 'one' }), await createOnPage(owner, { name: 'two' })]
    const theirs = await createOnPage(bystander, { name: 'theirs' })
    assert.equal((await owner.post('/account/tokens/revoke-all', {})).status, 419, 'CSRF')
    for (const t of mine) assert.equal((await api(t)).status, 200)
    await owner.get('/account/tokens')
    const r = await owner.post('/account/tokens/revoke-all', { __token: owner.csrf() }, { referer: `${server.url}/account/tokens` })
    assert.equal(r.status, 302)
    assert.equal(r.location, '/account/tokens')
    for (const t of mine) assert.equal((await api(t)).status, 401)
    assert.equal((await api(theirs)).status, 200, "another user's token is untouched")
    const page = await owner.get('/account/tokens')
    assert.match(page.text, /You have no tokens\./)
  })

  it('revoke-all in JSON: 200 with the count; 10 at once end each token once', async () => {
    const email = address('revoke-all-json')
    const owner = await confirmed(email)
    const tokens = []
    for (let i = 0; i < 4; i++) tokens.push((await createJson(owner, { name: `t${i}` })).json().data.token as string)
    await owner.get('/account/tokens')
    const csrf = owner.csrf()
    const answers = await Promise.all(Array.from({ length: 10 }, () => owner.request('POST', '/account/tokens/revoke-all', { json: {}, headers: { accept: 'application/json', 'x-csrf-token': csrf } })))
    assert.deepEqual(answers.map((a) => a.status), Array(10).fill(200))
    const counts = answers.map((a) => a.json().data.revoked as number)
    assert.equal(counts.reduce((a, b) => a + b, 0), 4, `revoked counts ${counts.join(',')}`)
    for (const t of tokens) assert.equal((await api(t)).status, 401)
  })

  it('a password change keeps personal tokens', async () => {
    const email = address('scripts')
    const owner = await confirmed(email)
    const token = await createOnPage(owner, { name: 'nightly backup' })
    assert.equal((await api(token)).status, 200)

    const changed = await owner.submit('/account', '/account/password', { current_password: PASSWORD, password: 'another long passphrase 42', password_confirmation: 'another long passphrase 42' })
    assert.equal(changed.status, 302, changed.text)
    assert.equal((await api(token)).status, 200, 'kept across a password change')
  })

  it('a password reset keeps personal tokens (scripts keep working); revoke-all ends them', async () => {
    const email = address('reset-scripts')
    const owner = await confirmed(email)
    const token = await createOnPage(owner, { name: 'nightly backup' })
    assert.equal((await api(token)).status, 200)
    await new Client(server.url).submit('/password_reset', '/password_reset', { email })
    const reset = RESET_LINK.exec(mailText((await waitForMail(email, 'Reset your password')).raw))?.[1]
    assert.ok(reset, 'reset mail sent')
    const done = await new Client(server.url).submit(`/change_password/${reset}`, `/change_password/${reset}`, { password: 'a third long passphrase 7', password_confirmation: 'a third long passphrase 7' })
    assert.equal(done.status, 302, done.text)
    assert.equal((await api(token)).status, 200, 'kept across a password reset')

    const again = await login(email, new Client(server.url)).catch(() => null)
    assert.equal(again, null, 'the old password no longer logs in')
    const fresh = new Client(server.url)
    assert.equal((await fresh.submit('/login', '/login', { email, password: 'a third long passphrase 7' })).location, '/home')
    await fresh.get('/account/tokens')
    assert.equal((await fresh.post('/account/tokens/revoke-all', { __token: fresh.csrf() })).status, 302)
    assert.equal((await api(token)).status, 401, 'revoke-all ends it')
  })

  it('craft token:create --expires takes 90d, 12h and 30m; a bare number is minutes; bad input is one line and exit 1', async () => {
    const email = address('cli')
    await register(email)
    const expiryOf = async (args: string[]) => {
      const r = app.craft('token:create', email, '--name', `cli ${args.join(' ')}`, ...args)
      assert.equal(r.code, 0, r.stderr + r.stdout)
      const id = Number(/^trw_(\d+)_/.exec(r.stdout.trim())![1])
      const row = await db('personal_access_tokens').where('id', id).first()
      return (new Date(row.expires_at).getTime() - Date.now()) / 60_000
    }
    const near = (minutes: number, expected: number) => assert.ok(Math.abs(minutes - expected) < 2, `${minutes} minutes, expected ${expected}`)
    near(await expiryOf(['--expires', '90d']), 90 * 24 * 60)
    near(await expiryOf(['--expires', '12h']), 12 * 60)
    near(await expiryOf(['--expires', '30m']), 30)
    near(await expiryOf(['--expires', '45']), 45)
    for (const bad of ['5w', 'soon', '0d', '12 h', '1e3']) {
      const r = app.craft('token:create', email, '--name', 'bad', '--expires', bad)
      assert.equal(r.code, 1, bad)
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`)
      assert.match(r.stderr, /--expires must be a positive duration such as 90d, 12h or 30m/)
      assert.equal(r.stdout.trim(), '')
    }
  })
})
