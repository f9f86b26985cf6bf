/**
 * Black-box: social login and the one login flow (test/helpers/forge-peer.ts as the provider).
 * - A TOTP user signing in with a linked provider is challenged after it, and lands logged in
 *   with the amr `["social", "otp"]` (method `social` on auth:login_succeeded).
 * - A pending link-up (an untrusted provider asserting an existing account's address) is linked
 *   by a password login to that account, only once its second factor is given.
 * - A password login to ANOTHER account, or a logout, discards the pending link-up: a later login
 *   to the right account links nothing.
 * - A user without a password confirms `/confirm-password` with a passkey of their own; a user
 *   with one still types it.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import * as OTPAuth from 'otpauth'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { PASSWORD, appDb } from '../helpers/security-kit.js'
import { startForgePeer, type ForgePeer } from '../helpers/forge-peer.js'
import { ORIGIN, SoftAuthenticator } from '../helpers/soft-authenticator.js'

/** The passkeys' relying party is the app's URL. */
const APP_URL = ORIGIN
const OTHER_ACCOUNT = 'You logged into another account: the sign-in was not linked to it.'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('social login through the one login flow', () => {
  let app: TestApp
  let server: Server
  let forge: ForgePeer
  let db: Knex

  before(async () => {
    forge = await startForgePeer({ clientId: 'forge-client', clientSecret: 'forge-secret' })
    app = await newApp({ env: { APP_URL, MAIL_DRIVER: 'log', FORGE_ISSUER: forge.issuer } })
    applyAuthSteps(app)
    budgetsOff(app)
    app.write(
      'config/social.ts',
      `import { env } from 'trowel'
export const SOCIAL = {
  providers: {
    forge: { driver: 'oidc', label: 'Forge', issuer: env('FORGE_ISSUER'), clientId: 'forge-client', clientSecret: 'forge-secret' },
  },
  state_minutes: 10,
  link_minutes: 10,
}
`,
    )
    app.edit('routes/web.ts', (t) =>
      t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/amr', (ctx) => ({ amr: ctx.session.get('auth.amr') })).middleware(['auth']),"),
    )
    if (!app.read('routes/web.ts').includes('import { Route }')) app.edit('routes/web.ts', (t) => `import { Route } from 'trowel'\n${t}`)
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await forge?.close()
  })

  async function register(email: string): Promise<{ client: Client; id: number }> {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: email.split('@')[0], email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', r.text)
    const id = Number((await db('users').where({ email }).first('id')).id)
    await db('users').where({ id }).update({ email_verified_at: new Date() })
    return { client, id }
  }

  async function enrolTotp(client: Client): Promise<OTPAuth.TOTP> {
    assert.equal((await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })).status, 302)
    const page = await client.get('/account/two-factor')
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
    assert.ok(secret, page.text.slice(0, 500))
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
    const r = await client.post('/account/two-factor', { __token: client.csrf(), code: totp.generate() }, { accept: 'application/json' })
    assert.equal(r.status, 200, r.text)
    return totp
  }

  /** The second step, with a code of the next period (the enrolment used the current one). */
  async function challenge(browser: Client, totp: OTPAuth.TOTP): Promise<string | null> {
    await browser.get('/two-factor-challenge')
    return (await browser.post('/two-factor-challenge', { __token: browser.csrf(), code: totp.generate({ timestamp: Date.now() + 30_000 }) })).location
  }

  /** A round trip at the forge for `subject` asserting `email` verified: the app's answer location. */
  async function signIn(browser: Client, subject: string, email: string): Promise<string | null> {
    forge.accounts.set(subject, { email, email_verified: true, name: subject })
    forge.next = subject
    forge.defect = 'none'
    const r = await browser.get('/auth/forge/redirect')
    assert.ok(r.location?.startsWith(forge.issuer), `${r.status} ${r.location}`)
    return (await browser.get(await forge.roundTrip(r.location!))).location
  }

  const identity = (subject: string) => db('social_identities').where({ provider: 'forge', subject }).first()
  const loggedIn = async (browser: Client) => (await browser.get('/home')).status === 200

  it('a TOTP user is challenged after the provider and lands logged in with amr social+otp', async () => {
    const { client, id } = await register('totp@example.test')
    const totp = await enrolTotp(client)
    const now = new Date()
    await db('social_identities').insert({ user_id: id, provider: 'forge', subject: 'totp-sub', email: 'totp@example.test', created_at: now, last_used_at: now })
    const browser = new Client(server.url)
    assert.equal(await signIn(browser, 'totp-sub', 'totp@example.test'), '/two-factor-challenge')
    assert.equal(await loggedIn(browser), false, 'the provider alone does not log in')
    assert.equal(await challenge(browser, totp), '/home')
    const amr = await browser.get('/amr', { accept: 'application/json' })
    assert.equal(amr.status, 200, amr.text)
    assert.deepEqual(amr.json().amr, ['social', 'otp'])
    let row: Record<string, any> | undefined
    for (let i = 0; i < 200 && !row; i++) {
      row = await db('auth_events').where({ type: 'auth:login_succeeded', user_id: id }).orderBy('id', 'desc').first()
      if (!row) await sleep(50)
    }
    const details = typeof row?.details === 'string' ? JSON.parse(row.details) : row?.details
    assert.equal(details?.method, 'social')
  })

  it('a pending link-up is linked by a password login to that account, once its second factor is given', async () => {
    const { client, id } = await register('linker@example.test')
    const totp = await enrolTotp(client)
    const browser = new Client(server.url)
    assert.equal(await signIn(browser, 'linker-sub', 'linker@example.test'), '/auth/forge/link')
    assert.equal(await identity('linker-sub'), undefined, 'never linked by e-mail')
    const step1 = await browser.submit('/login', '/login', { email: 'linker@example.test', password: PASSWORD })
    assert.equal(step1.location, '/two-factor-challenge')
    assert.equal(await identity('linker-sub'), undefined, 'not before the second factor')
    assert.ok(await challenge(browser, totp))
    assert.ok(await loggedIn(browser))
    const linked = await identity('linker-sub')
    assert.equal(String(linked?.user_id), String(id), 'linked to the account it was found for')
    // The provider now logs into it (and challenges, as the account has TOTP).
    assert.equal(await signIn(new Client(server.url), 'linker-sub', 'linker@example.test'), '/two-factor-challenge')
  })

  it('a password login to another account discards the pending link-up; so does a logout', async () => {
    await register('target@example.test')
    await register('bystander@example.test')
    const browser = new Client(server.url)
    assert.equal(await signIn(browser, 'target-sub', 'target@example.test'), '/auth/forge/link')
    assert.equal((await browser.submit('/login', '/login', { email: 'bystander@example.test', password: PASSWORD })).location, '/home')
    assert.ok((await browser.get('/home')).text.includes(OTHER_ACCOUNT), 'told it was not linked')
    assert.equal(await identity('target-sub'), undefined)
    await browser.post('/logout', { __token: browser.csrf() })
    assert.equal((await browser.submit('/login', '/login', { email: 'target@example.test', password: PASSWORD })).location, '/home')
    assert.equal(await identity('target-sub'), undefined, 'the discarded link-up links nothing later')
    assert.equal(await db('social_pending').where({ kind: 'link' }).first(), undefined, 'its row is gone')

    // A logout between the link page and the login: discarded too.
    const other = new Client(server.url)
    assert.equal(await signIn(other, 'target-sub', 'target@example.test'), '/auth/forge/link')
    await other.get('/login')
    await other.post('/logout', { __token: other.csrf() })
    assert.equal((await other.submit('/login', '/login', { email: 'target@example.test', password: PASSWORD })).location, '/home')
    assert.equal(await identity('target-sub'), undefined, 'a logout discards it')
  })

  it('a user without a password confirms with a passkey on /confirm-password', async () => {
    const browser = new Client(server.url)
    assert.equal(await signIn(browser, 'pk-sub', 'pk@example.test'), '/home')
    // A first confirmation by a fresh round trip, to add a passkey.
    await browser.get('/confirm-password')
    const go = await browser.post('/auth/forge/confirm', { __token: browser.csrf() })
    forge.next = 'pk-sub'
    assert.equal((await browser.get(await forge.roundTrip(go.location!))).location, '/account')
    const authenticator = new SoftAuthenticator()
    await browser.get('/account/passkeys')
    const options = await browser.postJson('/passkeys/register/options', {}, { accept: 'application/json', 'x-csrf-token': browser.csrf() })
    assert.equal(options.status, 200, options.text)
    const added = await browser.postJson('/passkeys/register', { response: authenticator.attest(options.json()), name: 'Key' }, { accept: 'application/json', 'x-csrf-token': browser.csrf() })
    assert.equal(added.status, 201, added.text)

    // Another session, not confirmed: the page offers the passkey, whose answer confirms.
    const later = new Client(server.url)
    assert.equal(await signIn(later, 'pk-sub', 'pk@example.test'), '/home')
    await later.get('/account/connections')
    const stopped = await later.post('/account/connections/forge/disconnect', { __token: later.csrf() }, { referer: `${server.url}/account/connections` })
    assert.equal(stopped.location, '/confirm-password')
    const page = await later.get('/confirm-password')
    assert.match(page.text, /data-passkey-login>Confirm with a passkey</)
    const ask = await later.postJson('/passkeys/login/options', {}, { accept: 'application/json', 'x-csrf-token': later.csrf() })
    assert.equal(ask.status, 200, ask.text)
    const answer = await later.postJson('/passkeys/login', { response: authenticator.assert(ask.json()) }, { accept: 'application/json', 'x-csrf-token': later.csrf() })
    assert.equal(answer.status, 200, answer.text)
    assert.equal(answer.json().redirect, '/account/connections', 'back where password.confirm stopped')
    await later.get('/account/connections')
    const off = await later.post('/account/connections/forge/disconnect', { __token: later.csrf() })
    assert.equal(off.location, '/account/connections', 'confirmed: the passkey is another way in')
    assert.equal(await identity('pk-sub'), undefined)
  })

  it('a user with a password is not confirmed by a passkey', async () => {
    const { client, id: userId } = await register('typed@example.test')
    const authenticator = new SoftAuthenticator()
    await client.get('/account/passkeys')
    const options = await client.postJson('/passkeys/register/options', {}, { accept: 'application/json', 'x-csrf-token': client.csrf() })
    const added = await client.postJson('/passkeys/register', { response: authenticator.attest(options.json()), name: 'Key' }, { accept: 'application/json', 'x-csrf-token': client.csrf() })
    assert.equal(added.status, 201, added.text)
    // A passkey login (no password typed), then its assertion again on the confirmation page.
    const browser = new Client(server.url)
    await browser.get('/login')
    const ask = await browser.postJson('/passkeys/login/options', {}, { accept: 'application/json', 'x-csrf-token': browser.csrf() })
    assert.equal((await browser.postJson('/passkeys/login', { response: authenticator.assert(ask.json()) }, { accept: 'application/json', 'x-csrf-token': browser.csrf() })).status, 200)
    const page = await browser.get('/confirm-password')
    assert.ok(!page.text.includes('Confirm with a passkey'), 'not offered')
    const again = await browser.postJson('/passkeys/login/options', {}, { accept: 'application/json', 'x-csrf-token': browser.csrf() })
    assert.equal((await browser.postJson('/passkeys/login', { response: authenticator.assert(again.json()) }, { accept: 'application/json', 'x-csrf-token': browser.csrf() })).status, 200)
    await browser.get('/account/passkeys')
    const id = (await db('passkeys').where('user_id', userId).first('id'))?.id
    assert.ok(id)
    const stopped = await browser.post(`/account/passkeys/${id}/delete`, { __token: browser.csrf() })
    assert.equal(stopped.location, '/confirm-password', 'the password is still asked for')
  })
})
