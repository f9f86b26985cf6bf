/**
 * Black-box: the `mfa` middleware on pages. A login without a second factor is sent to step up
 * (a user with TOTP or a passkey: /two-factor-challenge, then back to the page) or to enrol (a user
 * without one: /account/two-factor) once `GUARDS.mfa.grace_days` after sign-up have passed; JSON
 * gets 403 `E_MFA_REQUIRED`. Enrolling marks the session as two-factor.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import type { TestApp, Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { PASSWORD } from '../helpers/security-kit.js'
import { startAccountApp, totpCode, type AccountApp } from '../helpers/account-app.js'

describe('the mfa middleware (pages)', () => {
  let t: AccountApp
  let app: TestApp
  let server: Server
  let db: Knex

  before(async () => {
    t = await startAccountApp({
      routes: "  Route.get('/vault', (ctx) => `vault of ${ctx.auth.user().name}`).middleware(['auth', 'mfa']),\n  Route.post('/vault', () => 'posted').middleware(['auth', 'mfa']),",
      edit: (a) => assert.match(a.read('config/auth.ts'), /mfa: \{ grace_days: 0 \}/),
    })
    ;({ app, server, db } = t)
  })
  after(() => t?.close())

  const register = (email: string) => t.register(email, { name: 'Policy', verified: true })
  const login = (email: string) => t.login(email)
  const enrol = (client: Client) => t.enrolTotp(client)

  /** Gives `email` a passkey (a stored row: enough for `mfa` to count a factor). */
  async function addPasskey(email: string): Promise<void> {
    const id = Number((await db('users').where('email', email).first('id')).id)
    await db('passkeys').insert({
      user_id: id,
      credential_id: Buffer.from(`credential-of-${email}`).toString('base64url'),
      public_key: 'cHVibGljLWtleQ',
      counter: 0,
      transports: 'internal',
      device_type: 'multiDevice',
      backed_up: true,
      aaguid: null,
      name: 'Test key',
      created_at: new Date(),
    })
  }

  it('not logged in: to /login (JSON 401)', async () => {
    const client = new Client(server.url)
    assert.match((await client.get('/vault')).location ?? '', /^\/login(\?|$)/)
    const json = await client.get('/vault', { accept: 'application/json' })
    assert.equal(json.status, 401)
  })

  it('grace_days 0: a user without a second factor is sent to enrol (JSON 403 E_MFA_REQUIRED)', async () => {
    const client = await register('none@example.test')
    assert.equal((await client.get('/vault')).location, '/account/two-factor')
    const json = await client.get('/vault', { accept: 'application/json' })
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_MFA_REQUIRED')
    // Enrolling marks this session: the page opens.
    await enrol(client)
    const r = await client.get('/vault')
    assert.equal(r.status, 200)
    assert.equal(r.text, 'vault of Policy')
  })

  it('a user with TOTP whose login was a password only steps up, then goes back to the page', async () => {
    const email = 'stepup@example.test'
    const enrolling = await register(email)
    // This browser logged in with its password before TOTP was turned on: amr ['pwd'].
    const browser = await login(email)
    const secret = await enrol(enrolling)
    const r = await browser.get('/vault')
    assert.equal(r.status, 302)
    assert.equal(r.location, '/two-factor-challenge')
    const json = await browser.get('/vault', { accept: 'application/json' })
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_MFA_REQUIRED')
    const page = await browser.get('/two-factor-challenge')
    assert.equal(page.status, 200)
    assert.match(page.text, /name="code"/)
    // A wrong code: back to the form, still not through.
    let answer = await browser.post('/two-factor-challenge', { __token: browser.csrf(), code: '000000' })
    assert.equal(answer.location, '/two-factor-challenge')
    assert.equal((await browser.get('/vault')).location, '/two-factor-challenge')
    await browser.get('/two-factor-challenge')
    const session = browser.cookies.get('trowel_session')
    answer = await browser.post('/two-factor-challenge', { __token: browser.csrf(), code: totpCode(secret, 1) })
    assert.equal(answer.status, 302)
    assert.equal(answer.location, '/vault', 'back to the page mfa stopped')
    assert.notEqual(browser.cookies.get('trowel_session'), session, 'a new session id after the step-up')
    assert.equal((await browser.get('/vault')).status, 200)
    assert.equal((await browser.get('/home')).status, 200, 'still the same login')
  })

  it('a user whose only factor is a passkey steps up with it: the page offers the passkey only', async () => {
    const email = 'passkey-only@example.test'
    const client = await register(email)
    const id = Number((await db('users').where('email', email).first('id')).id)
    await db('passkeys').insert({
      user_id: id,
      credential_id: 'Y3JlZGVudGlhbC1mb3ItbWZhLXRlc3Q',
      public_key: 'cHVibGljLWtleQ',
      counter: 0,
      transports: 'internal',
      device_type: 'multiDevice',
      backed_up: true,
      aaguid: null,
      name: 'Test key',
      created_at: new Date(),
    })
    assert.equal((await client.get('/vault')).location, '/two-factor-challenge')
    const page = await client.get('/two-factor-challenge')
    assert.equal(page.status, 200)
    assert.match(page.text, /<p data-passkey-offer hidden><button type="button" data-passkey-login>Use a passkey<\/button><\/p>/)
    assert.match(page.text, /<script src="\/passkeys\/client\.js" defer><\/script>/)
    assert.doesNotMatch(page.text, /name="code"/, 'no TOTP: no code field')
  })

  it("a stolen trowel_auth cookie in another session gets neither that session's second factor nor its password confirmation", async () => {
    const victimEmail = 'victim@example.test'
    const victim = await register(victimEmail)
    await addPasskey(victimEmail)
    // The attacker's own session: password typed, TOTP enrolled (amr with otp).
    const attacker = await register('attacker@example.test')
    await enrol(attacker)
    assert.equal((await attacker.get('/vault')).status, 200)
    assert.equal((await attacker.get('/account/two-factor')).status, 200)
    // The victim's login cookie, paired with the attacker's session.
    attacker.cookies.set('trowel_auth', victim.cookies.get('trowel_auth')!)
    const vault = await attacker.get('/vault')
    assert.equal(vault.status, 302)
    assert.equal(vault.location, '/two-factor-challenge', 'mfa passed on the session of another login')
    const json = await attacker.get('/vault', { accept: 'application/json' })
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_MFA_REQUIRED')
    const confirm = await attacker.get('/account/two-factor')
    assert.equal(confirm.status, 302)
    assert.equal(confirm.location, '/confirm-password', 'password.confirm passed on the session of another login')
    // A fresh session with the stolen cookie is no better.
    const fresh = new Client(server.url)
    fresh.cookies.set('trowel_auth', victim.cookies.get('trowel_auth')!)
    assert.equal((await fresh.get('/vault')).location, '/two-factor-challenge')
    assert.equal((await fresh.get('/account/two-factor')).location, '/confirm-password')
    // The victim's own session is unchanged: its login, no second factor yet.
    assert.equal((await victim.get('/home')).status, 200)
    assert.equal((await victim.get('/vault')).location, '/two-factor-challenge')
  })

  it('a password-only login of a user with TOTP must step up before showing, regenerating or turning off TOTP', async () => {
    const email = 'manage@example.test'
    const enrolling = await register(email)
    // Logged in with the password before TOTP was on: amr ['pwd'], the password typed just now.
    const browser = await login(email)
    const secret = await enrol(enrolling)
    const id = Number((await db('users').where('email', email).first('id')).id)
    const codesBefore = (await db('two_factor_recovery_codes').where('user_id', id)).map((r) => r.code_hash).sort()
    await browser.get('/account')
    const token = browser.csrf()
    const page = await browser.get('/account/two-factor')
    assert.equal(page.status, 302)
    assert.equal(page.location, '/two-factor-challenge')
    for (const path of ['/account/two-factor/recovery-codes', '/account/two-factor/disable', '/account/two-factor']) {
      const r = await browser.post(path, { __token: token, code: totpCode(secret) }, { referer: `${server.url}/account/two-factor` })
      assert.equal(r.status, 302, path)
      assert.equal(r.location, '/two-factor-challenge', path)
      const json = await browser.post(path, { __token: token, code: totpCode(secret) }, { accept: 'application/json' })
      assert.equal(json.status, 403, path)
      assert.equal(json.json().code, 'E_MFA_REQUIRED', path)
    }
    assert.ok((await db('users').where('id', id).first()).two_factor_confirmed_at, 'turned off without a second factor')
    assert.deepEqual((await db('two_factor_recovery_codes').where('user_id', id)).map((r) => r.code_hash).sort(), codesBefore)
    assert.equal((await browser.get('/vault')).location, '/two-factor-challenge', 'managing TOTP passed mfa')
    // After the step-up (back to the page it was last stopped on), the same actions work.
    await browser.get('/two-factor-challenge')
    const answer = await browser.post('/two-factor-challenge', { __token: browser.csrf(), code: totpCode(secret, 1) })
    assert.equal(answer.location, '/vault')
    assert.equal((await browser.get('/account/two-factor')).status, 200)
    const regenerated = await browser.post('/account/two-factor/recovery-codes', { __token: browser.csrf() }, { accept: 'application/json' })
    assert.equal(regenerated.status, 200)
    assert.equal(regenerated.json().data.recovery_codes, undefined, 'never in the POST answer')
    assert.equal((await browser.get(regenerated.json().data.recovery_codes_url, { accept: 'application/json' })).json().data.recovery_codes.length, 10)
  })

  it('a password-only login of a user with a passkey cannot turn TOTP on to pass mfa; a user without a factor enrols under a new session id', async () => {
    const email = 'passkey-enrol@example.test'
    const client = await register(email)
    await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const page = await client.get('/account/two-factor')
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
    assert.ok(secret)
    const token = client.csrf()
    await addPasskey(email)
    const r = await client.post('/account/two-factor', { __token: token, code: totpCode(secret) }, { accept: 'application/json' })
    assert.equal(r.status, 403)
    assert.equal(r.json().code, 'E_MFA_REQUIRED')
    assert.equal((await db('users').where('email', email).first()).two_factor_confirmed_at, null)
    assert.equal((await client.get('/vault')).location, '/two-factor-challenge')

    // Without any factor: enrolling works, marks the session, and moves it to a new id.
    const other = await register('first-factor@example.test')
    await other.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const setup = await other.get('/account/two-factor')
    const key = /aria-label="Setup key ([A-Z2-7]+)"/.exec(setup.text)![1]!
    const before = other.cookies.get('trowel_session')
    const on = await other.post('/account/two-factor', { __token: other.csrf(), code: totpCode(key) })
    assert.equal(on.status, 302)
    assert.equal(on.location, '/account/two-factor')
    assert.match((await other.get('/account/two-factor')).text, /Your recovery codes/)
    assert.notEqual(other.cookies.get('trowel_session'), before, 'the same session id after enrolment')
    assert.equal((await other.get('/vault')).status, 200)
  })

  it('grace_days 30: a user without a factor passes until 30 days after sign-up', async () => {
    app.edit('config/auth.ts', (text) => text.replace('mfa: { grace_days: 0 }', 'mfa: { grace_days: 30 }'))
    server = await t.restart()
    const email = 'grace@example.test'
    const client = await register(email)
    assert.equal((await client.get('/vault')).status, 200)
    assert.equal((await client.post('/vault', { __token: (await client.get('/home'), client.csrf()) })).text, 'posted')
    // 31 days old: the grace is over.
    await db('users').where('email', email).update({ created_at: new Date(Date.now() - 31 * 24 * 3600 * 1000) })
    const again = await login(email)
    assert.equal((await again.get('/vault')).location, '/account/two-factor')
    assert.equal((await again.get('/vault', { accept: 'application/json' })).status, 403)
    // A user with TOTP steps up whatever the grace.
    const stepper = await register('grace-totp@example.test')
    const browser = await login('grace-totp@example.test')
    await enrol(stepper)
    assert.equal((await browser.get('/vault')).location, '/two-factor-challenge')
  })
})

describe('the mfa middleware with passkeys on and two_factor off', () => {
  let t: AccountApp
  let server: Server
  let db: Knex

  before(async () => {
    t = await startAccountApp({
      routes: "  Route.get('/vault', () => 'vault').middleware(['auth', 'mfa']),",
      edit: (a) => a.edit('config/auth.ts', (text) => text.replace(/features: \[[^\]]*\]/, "features: ['registration', 'account', 'passkeys']")),
    })
    ;({ server, db } = t)
  })
  after(() => t?.close())

  it('a passkey user is sent to /two-factor-challenge, which offers the passkey only and refuses codes', async () => {
    const email = 'passkeys-only@example.test'
    const client = new Client(server.url)
    const reg = await client.submit('/register', '/register', { name: 'Keys', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(reg.location, '/home', reg.text)
    const id = Number((await db('users').where('email', email).first('id')).id)
    await db('passkeys').insert({
      user_id: id,
      credential_id: 'cGFzc2tleXMtb25seS1jcmVkZW50aWFs',
      public_key: 'cHVibGljLWtleQ',
      counter: 0,
      transports: 'internal',
      device_type: 'multiDevice',
      backed_up: true,
      aaguid: null,
      name: 'Test key',
      created_at: new Date(),
    })
    assert.equal((await client.get('/vault')).location, '/two-factor-challenge')
    const page = await client.get('/two-factor-challenge')
    assert.equal(page.status, 200, `GET /two-factor-challenge: ${page.status}`)
    assert.match(page.text, /data-passkey-login/)
    assert.doesNotMatch(page.text, /name="code"/)
    const code = await client.post('/two-factor-challenge', { __token: client.csrf(), code: '123456' }, { accept: 'application/json' })
    assert.equal(code.status, 422)
    assert.equal(code.json().code, 'E_VALIDATION')
    const form = await client.post('/two-factor-challenge', { __token: client.csrf(), code: '123456' })
    assert.equal(form.status, 302)
    assert.equal(form.location, '/two-factor-challenge')
    assert.match((await client.get('/two-factor-challenge')).text, /Codes are not accepted here: use a passkey\./)
    assert.equal((await client.get('/vault')).location, '/two-factor-challenge')
  })
})
