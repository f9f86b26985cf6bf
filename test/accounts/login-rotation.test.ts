/**
 * Black-box, written as the attack: someone has copied this browser's cookies (`trowel_auth` and
 * `trowel_remember`). A password change, "log out other devices" and a completed step-up (a TOTP
 * code) replace both tokens: the owner stays logged in under new values, and the copies, replayed,
 * log in no more (and are not mistaken for theft of the new ones). Also: a `next` with characters
 * a header cannot carry is percent-encoded, never a 500.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import type { Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { PASSWORD } from '../helpers/security-kit.js'
import { startAccountApp, totpCode, type AccountApp } from '../helpers/account-app.js'

const NEW_PASSWORD = 'a brand new passphrase 42'
const LOGIN = /^\/login(\?|$)/

describe('rotation of the current login', () => {
  let t: AccountApp
  let server: Server
  let db: Knex

  before(async () => {
    t = await startAccountApp({ routes: "  Route.get('/vault', (ctx) => `vault of ${ctx.auth.user().name}`).middleware(['auth', 'mfa'])," })
    ;({ server, db } = t)
  })
  after(() => t?.close())

  const register = (email: string) => t.register(email, { name: 'Owner' })

  /** A password login with "remember me" from a new browser. */
  async function login(email: string, password = PASSWORD): Promise<Client> {
    const client = await t.login(email, { password, remember: true })
    assert.ok(client.cookies.get('trowel_remember'), 'no remember cookie')
    return client
  }

  /** The attacker's jar: a copy of `victim`'s login and remember-me cookies. */
  function copyOf(victim: Client): { auth: Client; remember: Client } {
    const auth = new Client(server.url)
    auth.cookies.set('trowel_auth', victim.cookies.get('trowel_auth')!)
    const remember = new Client(server.url)
    remember.cookies.set('trowel_remember', victim.cookies.get('trowel_remember')!)
    return { auth, remember }
  }

  /** The copied login cookie works before the action (so a refusal afterwards is the action's doing). */
  async function assertCopiesWork(copies: { auth: Client; remember: Client }): Promise<void> {
    // (The remember-me copy is not tried: restoring with it would replace the owner's token.)
    assert.equal((await copies.auth.get('/home')).status, 200, 'the copied login cookie does not work before')
  }

  /** The copies, replayed after the action, log in no more; the owner's browser still does. */
  async function assertRotated(victim: Client, before: { auth: string; remember: string }, copies: { auth: Client; remember: Client }, userId: number): Promise<void> {
    assert.notEqual(victim.cookies.get('trowel_auth'), before.auth, 'the login cookie was not replaced')
    assert.notEqual(victim.cookies.get('trowel_remember'), before.remember, 'the remember-me cookie was not replaced')
    const replayAuth = await copies.auth.get('/home')
    assert.equal(replayAuth.status, 302, 'the old login cookie still logs in')
    assert.match(replayAuth.location ?? '', LOGIN)
    const replayRemember = await copies.remember.get('/home')
    assert.equal(replayRemember.status, 302, 'the old remember-me cookie still logs in')
    assert.match(replayRemember.location ?? '', LOGIN)
    assert.equal((await victim.get('/home')).status, 200, 'the owner was logged out')
    // The old values were simply retired: no theft alarm ended the owner's device.
    assert.equal((await db('auth_events').where({ type: 'auth:remember_reuse', user_id: userId })).length, 0)
  }

  /** The owner's new remember-me cookie restores after a browser restart (last: it replaces the login). */
  async function assertNewRememberRestores(victim: Client): Promise<void> {
    const restarted = new Client(server.url)
    restarted.cookies.set('trowel_remember', victim.cookies.get('trowel_remember')!)
    assert.equal((await restarted.get('/home')).status, 200, 'the new remember-me cookie does not restore')
  }

  const idOf = (email: string) => t.idOf(email)
  const snapshot = (c: Client) => ({ auth: c.cookies.get('trowel_auth')!, remember: c.cookies.get('trowel_remember')! })

  it('a password change replaces this browser\'s login and remember-me tokens; copies of the old ones stop working', async () => {
    const email = 'change@example.test'
    await register(email)
    const victim = await login(email)
    const copies = copyOf(victim)
    await assertCopiesWork(copies)
    const before = snapshot(victim)
    const loginRow = await db('login_tokens').where('user_id', await idOf(email)).orderBy('id', 'desc').first()
    const r = await victim.submit('/account', '/account/password', { form: 'password', current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(r.location, '/account')
    assert.match((await victim.get('/account')).text, /Password changed/)
    // The same login, under a new token: its creation time (and so its lifetime) is kept.
    const rows = await db('login_tokens').where('user_id', await idOf(email))
    assert.ok(rows.some((row) => row.id === loginRow.id && row.token_hash !== loginRow.token_hash && new Date(row.created_at).getTime() === new Date(loginRow.created_at).getTime()), 'the login was replaced, not rotated')
    await assertRotated(victim, before, copies, await idOf(email))
    await assertNewRememberRestores(victim)
  })

  it('"log out other devices" replaces this browser\'s tokens too: a copy of them is one of the other devices', async () => {
    const email = 'others@example.test'
    await register(email)
    const victim = await login(email)
    const copies = copyOf(victim)
    await assertCopiesWork(copies)
    const before = snapshot(victim)
    const r = await victim.submit('/account/devices', '/account/devices/revoke-others', {})
    assert.equal(r.location, '/account/devices')
    await assertRotated(victim, before, copies, await idOf(email))
    // What this login had earned stays: the password confirmation still holds.
    const again = await victim.submit('/account/devices', '/account/devices/revoke-others', {})
    assert.equal(again.location, '/account/devices', 'the rotated login lost its password confirmation')
    await assertNewRememberRestores(victim)
  })

  it('a completed step-up (TOTP code) replaces this browser\'s tokens; the copies stay without it', async () => {
    const email = 'stepup@example.test'
    const enrolling = await register(email)
    // Enrolling needs a verified address (the registration mail's link, done here directly).
    await db('users').where('email', email).update({ email_verified_at: new Date() })
    // Logged in before TOTP was on: a password-only login that must step up.
    const victim = await login(email)
    const secret = await t.enrolTotp(enrolling)

    const copies = copyOf(victim)
    await assertCopiesWork(copies)
    const before = snapshot(victim)
    assert.equal((await victim.get('/vault')).location, '/two-factor-challenge')
    await victim.get('/two-factor-challenge')
    const answer = await victim.post('/two-factor-challenge', { __token: victim.csrf(), code: totpCode(secret, 1) })
    assert.equal(answer.location, '/vault', answer.text.slice(0, 500))
    assert.equal((await victim.get('/vault')).text, 'vault of Owner')
    await assertRotated(victim, before, copies, await idOf(email))
    assert.equal((await victim.get('/vault')).text, 'vault of Owner', 'the rotated login lost its second factor')
    await assertNewRememberRestores(victim)
  })

  it('a next with characters above U+00FF is percent-encoded (no 500), on the login and when already logged in', async () => {
    const email = 'next@example.test'
    await register(email)
    const next = '/home?q=\u4e2d\u6587\u2603&x=caf\u00e9'
    const client = new Client(server.url)
    const r = await client.submit('/login', '/login', { email, password: PASSWORD, next })
    assert.equal(r.status, 302, r.text.slice(0, 500))
    assert.equal(r.location, '/home?q=%E4%B8%AD%E6%96%87%E2%98%83&x=caf%C3%A9')
    assert.equal((await client.get(r.location!)).status, 200)
    // Already logged in: the login page sends the browser on.
    const page = await client.get(`/login?next=${encodeURIComponent(next)}`)
    assert.ok(page.status < 500, `status ${page.status}`)
    // A lone surrogate has no UTF-8 form: /home instead.
    const other = new Client(server.url)
    const lone = await other.submit('/login', '/login', { email, password: PASSWORD, next: '/home?q=\ud800' })
    assert.equal(lone.status, 302)
    assert.ok(lone.location === '/home' || lone.location?.startsWith('/home?q=%EF%BF%BD'), String(lone.location))
  })
})
