/**
 * Black-box: the `mfa.recent` middleware. A user with a second factor passes only when this login
 * gave one within `GUARDS.web.password_timeout` minutes; a trusted-device mark (which skips the
 * login's challenge) never counts: such a login steps up on /two-factor-challenge and comes back.
 * JSON gets 403 `E_MFA_REQUIRED`. A user without a factor passes.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import type { Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { PASSWORD } from '../helpers/security-kit.js'
import { startAccountApp, totpCode as code, type AccountApp } from '../helpers/account-app.js'

describe('the mfa.recent middleware', () => {
  let t: AccountApp
  let server: Server
  let db: Knex

  before(async () => {
    t = await startAccountApp({ routes: "  Route.get('/sensitive', (ctx) => `sensitive for ${ctx.auth.user().name}`).middleware(['auth', 'mfa.recent'])," })
    ;({ server, db } = t)
  })
  after(() => t?.close())

  const register = (email: string) => t.register(email, { name: 'Recent', verified: true })
  /** Turns TOTP on from `client`; the secret. */
  const enrol = (client: Client, ahead = 0) => t.enrolTotp(client, { ahead })

  async function answer(client: Client, form: Record<string, string>) {
    await client.get('/two-factor-challenge')
    return client.post('/two-factor-challenge', { __token: client.csrf(), ...form })
  }

  it('not logged in: to /login (JSON 401)', async () => {
    const client = new Client(server.url)
    assert.match((await client.get('/sensitive')).location ?? '', /^\/login(\?|$)/)
    assert.equal((await client.get('/sensitive', { accept: 'application/json' })).status, 401)
  })

  it('a user without a second factor passes', async () => {
    const client = await register('none@example.test')
    const r = await client.get('/sensitive')
    assert.equal(r.status, 200)
    assert.equal(r.text, 'sensitive for Recent')
  })

  it('a factor just enrolled, or just answered at login, counts', async () => {
    const email = 'answered@example.test'
    const enrolling = await register(email)
    const secret = await enrol(enrolling)
    assert.equal((await enrolling.get('/sensitive')).status, 200, 'the enrolment showed the factor')
    const other = new Client(server.url)
    assert.equal((await other.submit('/login', '/login', { email, password: PASSWORD })).location, '/two-factor-challenge')
    assert.equal((await answer(other, { code: code(secret, 1) })).location, '/home')
    assert.equal((await other.get('/sensitive')).status, 200)
  })

  it('a trusted-device login never counts: it steps up, then comes back', async () => {
    const email = 'trusted@example.test'
    const enrolling = await register(email)
    // Three codes of three successive time steps: enrolment, login, step-up.
    const secret = await enrol(enrolling, -1)
    const browser = new Client(server.url)
    await browser.submit('/login', '/login', { email, password: PASSWORD })
    assert.equal((await answer(browser, { code: code(secret), trust: '1' })).location, '/home')
    await browser.submit('/home', '/logout', {})
    // The trusted browser logs in with the password alone (amr pwd+otp, no code given).
    assert.equal((await browser.submit('/login', '/login', { email, password: PASSWORD })).location, '/home')
    const r = await browser.get('/sensitive')
    assert.equal(r.status, 302)
    assert.equal(r.location, '/two-factor-challenge')
    const json = await browser.get('/sensitive', { accept: 'application/json' })
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_MFA_REQUIRED')
    // The challenge page asks (it does not bounce back because the amr says otp).
    const page = await browser.get('/two-factor-challenge')
    assert.equal(page.status, 200)
    assert.match(page.text, /name="code"/)
    await browser.get('/sensitive')
    const done = await answer(browser, { code: code(secret, 1) })
    assert.equal(done.location, '/sensitive', 'back to the page mfa.recent stopped')
    assert.equal((await browser.get('/sensitive')).status, 200)
  })

  it('a trusted-device login cannot turn two factors off or add a passkey without a fresh factor', async () => {
    const email = 'trusted-sensitive@example.test'
    const enrolling = await register(email)
    const secret = await enrol(enrolling, -1)
    const browser = new Client(server.url)
    await browser.submit('/login', '/login', { email, password: PASSWORD })
    assert.equal((await answer(browser, { code: code(secret), trust: '1' })).location, '/home')
    await browser.submit('/home', '/logout', {})
    assert.equal((await browser.submit('/login', '/login', { email, password: PASSWORD })).location, '/home')
    // The password was typed at this login: password.confirm passes; mfa.recent does not.
    await browser.get('/account/two-factor')
    const off = await browser.post('/account/two-factor/disable', { __token: browser.csrf() }, { referer: `${server.url}/account/two-factor` })
    assert.equal(off.status, 302)
    assert.equal(off.location, '/two-factor-challenge')
    const offJson = await browser.post('/account/two-factor/disable', { __token: browser.csrf() }, { accept: 'application/json' })
    assert.equal(offJson.status, 403)
    assert.equal(offJson.json().code, 'E_MFA_REQUIRED')
    for (const path of ['/passkeys/register/options', '/passkeys/register']) {
      const r = await browser.postJson(path, {}, { accept: 'application/json', 'x-csrf-token': browser.csrf() })
      assert.equal(r.status, 403, path)
      assert.equal(r.json().code, 'E_MFA_REQUIRED', path)
    }
    assert.ok((await db('users').where('email', email).first()).two_factor_confirmed_at, 'two factors still on')
  })

  it('a login restored from another browser session without a factor (password only, TOTP turned on elsewhere) steps up', async () => {
    const email = 'elsewhere@example.test'
    const enrolling = await register(email)
    const browser = new Client(server.url)
    assert.equal((await browser.submit('/login', '/login', { email, password: PASSWORD })).location, '/home')
    await enrol(enrolling)
    assert.equal((await browser.get('/sensitive')).location, '/two-factor-challenge')
  })
})
