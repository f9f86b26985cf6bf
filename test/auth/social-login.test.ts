/**
 * Black-box: social login against a real OpenID Provider (oidc-provider, in process on
 * 127.0.0.1), in a generated app whose config/social.ts names it (`acme`, and `trusty`, the same
 * issuer with `trusted: true`).
 * - A verified address makes an account (no password, verified) and its identity; the next round
 *   trip logs into it; /login shows the button.
 * - An unverified address is asked for and confirmed by a mailed link before anything is created.
 * - An account with the address is never linked by an untrusted provider: the link page asks for
 *   a login to it, after which the identity is linked; a trusted provider links at once.
 * - Every refusal (no, unknown, replayed, expired, other browser's state; provider error; an `iss`
 *   that is not the issuer) → 302 /login with one message, nothing stored.
 * - Concurrency: one state fired twice → one login; two round trips of one new subject → one user.
 * - Disconnecting the only way in is refused (409 E_CONFLICT in JSON).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb, registerUser } from '../helpers/security-kit.js'
import { startOidcPeer, type OidcPeer } from '../helpers/oidc-peer.js'
import * as OTPAuth from 'otpauth'

const APP_URL = 'http://app.example.test'
const FAILED = 'The sign-in could not be completed. Please try again.'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('social login with a real OpenID Provider', () => {
  let app: TestApp
  let server: Server
  let op: OidcPeer
  let smtp: SmtpPeer
  let db: Knex

  before(async () => {
    smtp = await startSmtpPeer()
    op = await startOidcPeer([
      { clientId: 'acme-client', clientSecret: 'acme-secret', redirectUris: [`${APP_URL}/auth/acme/callback`] },
      { clientId: 'trusty-client', clientSecret: 'trusty-secret', redirectUris: [`${APP_URL}/auth/trusty/callback`] },
    ])
    app = await newApp({ env: { APP_URL, MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), ACME_ISSUER: op.issuer, ACME_CLIENT_ID: 'acme-client', ACME_CLIENT_SECRET: 'acme-secret' } })
    applyAuthSteps(app)
    budgetsOff(app)
    app.write(
      'config/social.ts',
      `import { env } from 'trowel'
export const SOCIAL = {
  providers: {
    github: { clientId: env('GITHUB_CLIENT_ID'), clientSecret: env('GITHUB_CLIENT_SECRET') },
    acme: { driver: 'oidc', label: 'Acme', issuer: env('ACME_ISSUER'), clientId: env('ACME_CLIENT_ID'), clientSecret: env('ACME_CLIENT_SECRET') },
    trusty: { driver: 'oidc', label: 'Trusty', issuer: env('ACME_ISSUER'), clientId: 'trusty-client', clientSecret: 'trusty-secret', trusted: true },
  },
  state_minutes: 10,
  link_minutes: 10,
}
`,
    )
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await op?.close()
    await smtp?.close()
  })

  /** Starts a sign-in in `browser`: the provider's URL. */
  async function start(browser: Client, provider = 'acme', query = ''): Promise<string> {
    const r = await browser.get(`/auth/${provider}/redirect${query}`)
    assert.equal(r.status, 302, r.text)
    assert.ok(r.location?.startsWith(op.issuer), r.location ?? '')
    return r.location!
  }

  /** A whole round trip for `account`: the app's callback path and query. */
  async function callbackFor(browser: Client, account: string, provider = 'acme'): Promise<string> {
    op.next = account
    return op.roundTrip(await start(browser, provider))
  }

  async function loggedInAs(browser: Client): Promise<string | null> {
    const home = await browser.get('/home')
    return home.status === 200 ? home.text : null
  }

  async function counts(): Promise<string> {
    const users = await db('users').count<{ n: number }[]>({ n: '*' })
    const ids = await db('social_identities').count<{ n: number }[]>({ n: '*' })
    return `${users[0]!.n}/${ids[0]!.n}`
  }

  async function expectFailure(browser: Client, path: string): Promise<void> {
    const r = await browser.get(path)
    assert.equal(r.status, 302, r.text)
    assert.equal(r.location, '/login')
    const page = await browser.get('/login')
    assert.ok(page.text.includes(FAILED), 'the one failure message')
  }

  it('shows the served providers on /login and /register; an unset clientId is not served', async () => {
    const browser = new Client(server.url)
    for (const page of ['/login', '/register']) {
      const text = (await browser.get(page)).text
      assert.match(text, /<a class="button"[^>]*href="\/auth\/acme\/redirect">Sign in with Acme<\/a>/)
      assert.ok(!text.includes('/auth/github/redirect'), 'github has no clientId')
    }
    assert.equal((await browser.get('/auth/github/redirect')).status, 404)
    const json = await browser.get('/auth/acme/redirect', { accept: 'application/json' })
    assert.equal(json.status, 200, json.text)
    assert.ok(json.json().data.url.startsWith(`${op.issuer}/`))
  })

  it('a verified address makes an account without a password; the next round trip logs into it', async () => {
    op.accounts.set('alice-sub', { email: 'Alice@Example.test', email_verified: true, name: 'Alice Acme' })
    const browser = new Client(server.url)
    const authorize = await start(browser, 'acme', '?next=/account')
    const url = new URL(authorize)
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256')
    assert.ok(url.searchParams.get('nonce'))
    assert.equal(url.searchParams.get('redirect_uri'), `${APP_URL}/auth/acme/callback`)
    assert.match(browser.cookieHeader(), /trowel_oauth=/)
    op.next = 'alice-sub'
    const back = await op.roundTrip(authorize)
    assert.match(back, /[?&]iss=/, 'the provider sends iss (RFC 9207)')
    const r = await browser.get(back)
    assert.equal(r.status, 302, r.text)
    assert.equal(r.location, '/account')
    assert.match((await loggedInAs(browser)) ?? '', /Alice Acme/)
    const user = await db('users').where('email', 'alice@example.test').first()
    assert.ok(user, 'the account exists')
    assert.equal(user.password, null)
    assert.ok(user.email_verified_at)
    const identity = await db('social_identities').where({ provider: 'acme', subject: 'alice-sub' }).first()
    assert.equal(String(identity.user_id), String(user.id))
    // Again, from another browser: the same account.
    const again = new Client(server.url)
    const second = await again.get(await callbackFor(again, 'alice-sub'))
    assert.equal(second.location, '/home')
    assert.match((await loggedInAs(again)) ?? '', /Alice Acme/)
    assert.equal((await db('users').where('email', 'alice@example.test')).length, 1)
    // The callback URL again (a replay): refused.
    await expectFailure(new Client(server.url), back)
  })

  it('refusals: no, unknown, replayed, expired or other browser state; provider error; wrong iss — nothing stored', async () => {
    op.accounts.set('mallory-sub', { email: 'mallory@example.test', email_verified: true, name: 'Mallory' })
    const before = await counts()
    const browser = new Client(server.url)
    await expectFailure(browser, '/auth/acme/callback?code=x')
    await expectFailure(browser, '/auth/acme/callback?code=x&state=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')
    // Another browser's state.
    const theirs = await callbackFor(new Client(server.url), 'mallory-sub')
    await expectFailure(browser, theirs)
    // The provider says no.
    const denied = new URL(await start(browser))
    await expectFailure(browser, `/auth/acme/callback?error=access_denied&state=${denied.searchParams.get('state')}`)
    // An iss that is not the issuer.
    const mixed = await callbackFor(browser, 'mallory-sub')
    await expectFailure(browser, mixed.replace(/iss=[^&]+/, `iss=${encodeURIComponent('http://127.0.0.1:1')}`))
    // Another provider's path.
    const other = await callbackFor(browser, 'mallory-sub')
    await expectFailure(browser, other.replace('/auth/acme/', '/auth/trusty/'))
    // Expired.
    const late = await callbackFor(browser, 'mallory-sub')
    await db('social_pending').where('kind', 'state').update({ expires_at: new Date(Date.now() - 1000) })
    await expectFailure(browser, late)
    assert.equal(await counts(), before, 'no user, no identity')
    const failures = await db('auth_events').where('type', 'auth:login_failed').count<{ n: number }[]>({ n: '*' })
    assert.ok(Number(failures[0]!.n) >= 7)
  })

  it('one state fired twice at once logs in once, never a 500', async () => {
    op.accounts.set('twice-sub', { email: 'twice@example.test', email_verified: true, name: 'Twice' })
    const browser = new Client(server.url)
    const back = await callbackFor(browser, 'twice-sub')
    const [a, b] = await Promise.all([browser.get(back), browser.get(back)])
    const locations = [a.location, b.location].sort()
    assert.deepEqual(locations, ['/home', '/login'], `${a.status} ${b.status}`)
    assert.equal((await db('users').where('email', 'twice@example.test')).length, 1)
  })

  it('two round trips of one new subject at once make one user; the other is logged in as it or shown the link page', async () => {
    op.accounts.set('race-sub', { email: 'race@example.test', email_verified: true, name: 'Race' })
    const browsers = [new Client(server.url), new Client(server.url), new Client(server.url)]
    const backs: string[] = []
    for (const b of browsers) backs.push(await callbackFor(b, 'race-sub'))
    const answers = await Promise.all(browsers.map((b, i) => b.get(backs[i]!)))
    for (const r of answers) {
      assert.equal(r.status, 302, r.text)
      assert.ok(['/home', '/auth/acme/link'].includes(r.location ?? ''), r.location ?? '')
    }
    assert.equal((await db('users').where('email', 'race@example.test')).length, 1)
    assert.equal((await db('social_identities').where({ provider: 'acme', subject: 'race-sub' })).length, 1)
  })

  it('an unverified address is confirmed by a mailed link before the account is made', async () => {
    op.accounts.set('unverified-sub', { email: 'claimed@example.test', email_verified: false, name: 'Unverified' })
    const before = await counts()
    const browser = new Client(server.url)
    const r = await browser.get(await callbackFor(browser, 'unverified-sub'))
    assert.equal(r.location, '/auth/acme/email')
    assert.equal(await counts(), before, 'nothing made from an unverified address')
    const sent = await browser.submit('/auth/acme/email', '/auth/acme/email', { email: 'proven@example.test' })
    assert.equal(sent.status, 302, sent.text)
    let link = ''
    for (let i = 0; i < 100 && !link; i++) {
      const mail = smtp.messages.find((m) => m.to.includes('proven@example.test'))
      link = mail ? (/http:\/\/app\.example\.test(\/auth\/acme\/email\/[A-Za-z0-9_-]{43})/.exec(mailText(mail.raw))?.[1] ?? '') : ''
      if (!link) await sleep(50)
    }
    assert.ok(link, 'the confirmation mail')
    // Another browser (the address's owner, if someone else gave it): the link does nothing there.
    const elsewhere = new Client(server.url)
    assert.match((await elsewhere.get(link)).text, /works only in the browser where you signed in/)
    await elsewhere.get('/login')
    assert.equal((await elsewhere.post(link, { __token: elsewhere.csrf() })).location, '/login')
    assert.equal(await counts(), before)
    const head = await browser.request('HEAD', link)
    assert.equal(head.status, 200)
    const page = await browser.get(link)
    assert.match(page.text, /Confirm proven@example\.test\?/)
    assert.equal(await counts(), before, 'GET changes nothing')
    const done = await browser.post(link, { __token: browser.csrf() })
    assert.equal(done.location, '/home', done.text)
    const user = await db('users').where('email', 'proven@example.test').first()
    assert.ok(user?.email_verified_at)
    assert.ok(await db('social_identities').where({ provider: 'acme', subject: 'unverified-sub', user_id: user.id }).first())
    assert.equal((await new Client(server.url).post(link, {})).status, 419, 'CSRF first')
  })

  it('an existing account is linked only after a login to it (untrusted), or at once by a trusted provider onto a verified account', async () => {
    const owner = await registerUser(server.url, 'owner@example.test', 'Owner')
    await db('users').where('email', 'owner@example.test').update({ email_verified_at: new Date() })
    void owner
    op.accounts.set('owner-sub', { email: 'owner@example.test', email_verified: true, name: 'Someone' })
    const browser = new Client(server.url)
    const r = await browser.get(await callbackFor(browser, 'owner-sub'))
    assert.equal(r.location, '/auth/acme/link')
    assert.equal(await db('social_identities').where({ subject: 'owner-sub' }).first(), undefined, 'never linked by e-mail')
    const page = await browser.get('/auth/acme/link')
    assert.match(page.text, /An account already uses owner@example\.test/)
    const login = await browser.submit('/login?next=/auth/acme/link', '/login', { email: 'owner@example.test', password: PASSWORD, next: '/auth/acme/link' })
    assert.equal(login.location, '/auth/acme/link')
    const linked = await browser.get('/auth/acme/link')
    assert.equal(linked.location, '/account/connections')
    const identity = await db('social_identities').where({ provider: 'acme', subject: 'owner-sub' }).first()
    const user = await db('users').where('email', 'owner@example.test').first()
    assert.equal(String(identity.user_id), String(user.id))
    const connections = await browser.get('/account/connections')
    assert.match(connections.text, /Acme <strong>\(connected\)<\/strong>/)
    // The trusted provider links at once onto the verified account.
    const trusted = new Client(server.url)
    const t = await trusted.get(await callbackFor(trusted, 'owner-sub', 'trusty'))
    assert.equal(t.location, '/home')
    assert.ok(await db('social_identities').where({ provider: 'trusty', subject: 'owner-sub', user_id: user.id }).first())
  })

  it('a user without a password confirms by a fresh provider round trip; disconnecting the only way in is refused', async () => {
    op.accounts.set('only-sub', { email: 'only@example.test', email_verified: true, name: 'Only' })
    const browser = new Client(server.url)
    await browser.get(await callbackFor(browser, 'only-sub'))
    const page = await browser.get('/account/connections')
    assert.equal(page.status, 200, page.text)
    // password.confirm: no password to type, so the provider is asked again.
    const ask = await browser.post('/account/connections/acme/disconnect', { __token: browser.csrf() })
    assert.equal(ask.location, '/confirm-password')
    const confirmPage = await browser.get('/confirm-password')
    assert.match(confirmPage.text, /Confirm with Acme/)
    const go = await browser.post('/auth/acme/confirm', { __token: browser.csrf() })
    const authorize = new URL(go.location ?? '')
    assert.equal(authorize.searchParams.get('prompt'), 'login')
    assert.equal(authorize.searchParams.get('max_age'), '0')
    op.next = 'only-sub'
    const confirmed = await browser.get(await op.roundTrip(authorize.href))
    assert.equal(confirmed.status, 302, confirmed.text)
    assert.notEqual(confirmed.location, '/login')
    await browser.get('/account/connections')
    const refused = await browser.request('POST', '/account/connections/acme/disconnect', { form: { __token: browser.csrf() }, headers: { accept: 'application/json' } })
    assert.equal(refused.status, 409, refused.text)
    assert.equal(refused.json().code, 'E_CONFLICT')
    assert.ok(await db('social_identities').where({ subject: 'only-sub' }).first(), 'still linked')
    // Another user's identity cannot confirm this one.
    op.accounts.set('stranger-sub', { email: 'stranger@example.test', email_verified: true, name: 'Stranger' })
    await browser.get('/confirm-password')
    const other = await browser.post('/auth/acme/confirm', { __token: browser.csrf() })
    op.next = 'stranger-sub'
    const no = await browser.get(await op.roundTrip(other.location!))
    assert.equal(no.location, '/confirm-password')
    // A first password: not without a recent confirmation, then with one (no current password).
    const fresh = new Client(server.url)
    await fresh.get(await callbackFor(fresh, 'only-sub'))
    const account = await fresh.get('/account')
    assert.match(account.text, /Set a password/)
    assert.ok(!account.text.includes('name="current_password"'), 'no current password to type')
    const first = { password: 'a first password for only', password_confirmation: 'a first password for only' }
    assert.equal((await fresh.post('/account/password', { __token: fresh.csrf(), ...first })).location, '/confirm-password')
    await browser.get('/account')
    const set = await browser.post('/account/password', { __token: browser.csrf(), ...first })
    assert.equal(set.status, 302, set.text)
    assert.equal((await new Client(server.url).submit('/login', '/login', { email: 'only@example.test', password: first.password })).location, '/home')
  })

  it('a TOTP user is challenged after the provider', async () => {
    const browser = new Client(server.url)
    assert.equal((await browser.submit('/login', '/login', { email: 'owner@example.test', password: PASSWORD })).location, '/home')
    await browser.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const page = await browser.get('/account/two-factor')
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
    assert.ok(secret, page.text.slice(0, 500))
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
    const enabled = await browser.post('/account/two-factor', { __token: browser.csrf(), code: totp.generate() }, { accept: 'application/json' })
    assert.equal(enabled.status, 200, enabled.text)
    const fresh = new Client(server.url)
    const r = await fresh.get(await callbackFor(fresh, 'owner-sub'))
    assert.equal(r.location, '/two-factor-challenge')
    assert.equal(await loggedInAs(fresh), null, 'the provider alone does not log in')
    await fresh.get('/two-factor-challenge')
    const step = await fresh.post('/two-factor-challenge', { __token: fresh.csrf(), code: totp.generate({ timestamp: Date.now() + 30_000 }) })
    assert.equal(step.location, '/home', step.text)
    assert.match((await loggedInAs(fresh)) ?? '', /Owner/)
  })

  it('"This wasn\'t me" from the social_linked notice removes the identities linked since', async () => {
    const notice = await (async () => {
      for (let i = 0; i < 200; i++) {
        const found = smtp.messages.find((m) => m.to.includes('owner@example.test') && /Subject: A sign-in provider was linked/.test(m.raw))
        if (found) return found
        await sleep(50)
      }
      throw new Error('no social_linked notice')
    })()
    const token = /http:\/\/app\.example\.test\/account\/secure\/([A-Za-z0-9_-]{43})/.exec(mailText(notice.raw))?.[1]
    assert.ok(token, mailText(notice.raw))
    const user = await db('users').where('email', 'owner@example.test').first()
    assert.equal((await db('social_identities').where('user_id', user.id)).length, 2)
    const mailbox = new Client(server.url)
    await mailbox.get(`/account/secure/${token}`)
    assert.equal((await mailbox.post(`/account/secure/${token}`, { __token: mailbox.csrf() })).status, 303)
    assert.equal((await db('social_identities').where('user_id', user.id)).length, 0, 'the reported identity and the newer one are gone')
    const again = new Client(server.url)
    const r = await again.get(await callbackFor(again, 'owner-sub'))
    assert.notEqual(r.location, '/home', 'the identity no longer logs in')
    assert.notEqual(r.location, '/two-factor-challenge')
  })

  it('connect from the account page links to the logged-in user only; another user\'s identity is never moved', async () => {
    await registerUser(server.url, 'connector@example.test', 'Connector')
    await db('users').where('email', 'connector@example.test').update({ email_verified_at: new Date() })
    op.accounts.set('conn-sub', { email: 'elsewhere@example.test', email_verified: false, name: 'Conn' })
    const browser = new Client(server.url)
    assert.equal((await browser.submit('/login', '/login', { email: 'connector@example.test', password: PASSWORD })).location, '/home')
    await browser.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.match((await browser.get('/account')).text, /href="\/account\/connections"/)
    // Alice's Acme identity (linked to her account): refused, never moved.
    await browser.get('/account/connections')
    const theirs = await browser.post('/account/connections/acme', { __token: browser.csrf() })
    op.next = 'alice-sub'
    const refused = await browser.get(await op.roundTrip(theirs.location!))
    assert.equal(refused.location, '/account/connections')
    assert.match((await browser.get('/account/connections')).text, /linked to another user/)
    const alice = await db('users').where('email', 'alice@example.test').first()
    assert.ok(await db('social_identities').where({ provider: 'acme', subject: 'alice-sub', user_id: alice.id }).first(), 'alice keeps hers')
    const go = await browser.post('/account/connections/acme', { __token: browser.csrf() })
    assert.ok(go.location?.startsWith(op.issuer), `${go.status} ${go.location}`)
    op.next = 'conn-sub'
    const done = await browser.get(await op.roundTrip(go.location!))
    assert.equal(done.location, '/account/connections')
    assert.match((await browser.get('/account/connections')).text, /Your Acme account is now connected\./)
    const me = await db('users').where('email', 'connector@example.test').first()
    assert.ok(await db('social_identities').where({ provider: 'acme', subject: 'conn-sub', user_id: me.id }).first())
    assert.equal((await db('social_identities').where('user_id', me.id)).length, 1)
    // The connector can disconnect: a password is another way in.
    await browser.get('/account/connections')
    const off = await browser.post('/account/connections/acme/disconnect', { __token: browser.csrf() })
    assert.equal(off.location, '/account/connections')
    assert.equal(await db('social_identities').where({ subject: 'conn-sub' }).first(), undefined)
  })
})
