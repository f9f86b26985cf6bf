/**
 * Black-box, written as the attacks: an intruder holding the password (or an account registered
 * under a future victim's address) tries to plant a second factor or grind codes.
 * - Pre-hijack: an unverified account cannot enrol TOTP or add a passkey (302 /email/verify, JSON
 *   403 E_EMAIL_NOT_VERIFIED), so the owner who later claims the address finds nothing planted.
 * - A pre-seeded TOTP secret: the secret an intruder's session was shown is not the one the
 *   owner's session confirms, and the intruder's codes never pass the owner's challenge.
 * - Grinding: 5 wrong answers in an hour e-mail the owner; 20 in a day stop answers (even right
 *   ones) until the password changes.
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
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { clearOfStepEdge } from '../helpers/totp-step.js'

const JSON_HEADERS = { accept: 'application/json' }

function code(secret: string, ahead = 0): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
  return totp.generate({ timestamp: Date.now() + ahead * 30_000 })
}

function setupKey(html: string): string {
  const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(html)?.[1]
  assert.ok(secret, 'no secret on the page')
  return secret
}

describe('second-factor attacks', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port) } })
    applyAuthSteps(app)
    // Every request comes from 127.0.0.1; the per-minute two_factor budget is off so that the
    // daily count can be reached here (answers it refuses would not count anyway).
    budgetsOff(app)
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await smtp?.close()
  })

  async function register(email: string, name = 'Owner'): Promise<Client> {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name, email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', r.text)
    return client
  }

  const verify = (email: string) => db('users').where('email', email).update({ email_verified_at: new Date() })

  async function login(email: string, client = new Client(server.url)): Promise<Client> {
    const r = await client.submit('/login', '/login', { email, password: PASSWORD })
    assert.ok(r.location === '/home' || r.location === '/two-factor-challenge', `${r.status} ${r.location}`)
    return client
  }

  it('pre-hijack: an unverified account cannot enrol TOTP or add a passkey', async () => {
    const email = 'future-victim@example.test'
    const attacker = await register(email, 'Attacker')
    await attacker.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const page = await attacker.get('/account/two-factor')
    assert.equal(page.status, 302)
    assert.equal(page.location, '/email/verify')
    assert.doesNotMatch(page.text, /Setup key/)
    const json = await attacker.get('/account/two-factor', JSON_HEADERS)
    assert.equal(json.status, 403)
    assert.equal(json.json().code, 'E_EMAIL_NOT_VERIFIED')
    await attacker.get('/account')
    const enable = await attacker.post('/account/two-factor', { __token: attacker.csrf(), code: '123456' })
    assert.equal(enable.location, '/email/verify')
    for (const path of ['/passkeys/register/options', '/passkeys/register']) {
      await attacker.get('/account/passkeys')
      const r = await attacker.postJson(path, {}, { ...JSON_HEADERS, 'x-csrf-token': attacker.csrf() })
      assert.equal(r.status, 403, `${path}: ${r.text}`)
      assert.equal(r.json().code, 'E_EMAIL_NOT_VERIFIED', path)
    }
    const row = await db('users').where('email', email).first()
    assert.equal(row.two_factor_secret ?? null, null)
    assert.equal((await db('passkeys').where('user_id', row.id)).length, 0)
    assert.equal((await db('auth_challenges').where({ user_id: row.id, purpose: 'passkey_register' })).length, 0, 'no registration ceremony started')
  })

  it('a TOTP secret shown to an intruder\'s session is never the one the owner confirms', async () => {
    const email = 'seeded@example.test'
    const owner = await register(email)
    await verify(email)
    // The intruder logs in with the phished password and opens the set-up page: secret A.
    const intruder = await login(email)
    await intruder.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const seeded = setupKey((await intruder.get('/account/two-factor')).text)
    assert.equal(setupKey((await intruder.get('/account/two-factor')).text), seeded, 'a reload keeps the session\'s secret')
    assert.equal((await db('users').where('email', email).first()).two_factor_secret ?? null, null, 'nothing stored on the account')
    // The owner enrols later from their own session: another secret, which the intruder never saw.
    await owner.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const secret = setupKey((await owner.get('/account/two-factor')).text)
    assert.notEqual(secret, seeded)
    await clearOfStepEdge()
    const on = await owner.post('/account/two-factor', { __token: owner.csrf(), code: code(secret, -1) })
    assert.equal(on.location, '/account/two-factor')
    // The intruder's codes: neither confirm a second enrolment nor pass the owner's challenge.
    const late = await intruder.post('/account/two-factor', { __token: intruder.csrf(), code: code(seeded) }, JSON_HEADERS)
    assert.notEqual(late.status, 200)
    const again = await login(email)
    await again.get('/two-factor-challenge')
    const refused = await again.post('/two-factor-challenge', { __token: again.csrf(), code: code(seeded) })
    assert.equal(refused.location, '/two-factor-challenge')
    assert.equal((await again.get('/home')).location, '/login', 'the intruder is not logged in')
    // The owner's authenticator works.
    await again.get('/two-factor-challenge')
    assert.equal((await again.post('/two-factor-challenge', { __token: again.csrf(), code: code(secret) })).location, '/home')
  })

  it('grinding codes: the 5th wrong answer in an hour e-mails the owner; the 20th stops answers until the password changes', async () => {
    const email = 'grind@example.test'
    const owner = await register(email)
    await verify(email)
    await owner.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const secret = setupKey((await owner.get('/account/two-factor')).text)
    await clearOfStepEdge()
    assert.equal((await owner.post('/account/two-factor', { __token: owner.csrf(), code: code(secret, -1) })).location, '/account/two-factor')
    const wrong = ['000000', '111111', '222222'].find((c) => ![-1, 0, 1].some((d) => code(secret, d) === c))!

    const attacker = await login(email)
    for (let i = 1; i <= 19; i++) {
      await attacker.get('/two-factor-challenge')
      const r = await attacker.post('/two-factor-challenge', { __token: attacker.csrf(), code: wrong })
      assert.equal(r.location, '/two-factor-challenge', `answer ${i}`)
      if (i === 5) {
        const mail = await smtp.waitFor((m) => m.to.includes(email) && mailText(m.raw).includes('Someone may have your password'))
        assert.match(mailText(mail.raw), /\/account\/secure\//, 'the notice carries "This wasn\'t me"')
      }
    }
    const notices = () => smtp.messages.filter((m) => m.to.includes(email) && mailText(m.raw).includes('Someone may have your password')).length
    assert.equal(notices(), 1, 'one notice an hour')
    // The 20th wrong answer stops every answer, the right code included, on the web and the API side.
    await attacker.get('/two-factor-challenge')
    await attacker.post('/two-factor-challenge', { __token: attacker.csrf(), code: wrong })
    const ownerLogin = await login(email)
    await ownerLogin.get('/two-factor-challenge')
    const stopped = await ownerLogin.post('/two-factor-challenge', { __token: ownerLogin.csrf(), code: code(secret) })
    assert.equal(stopped.location, '/two-factor-challenge')
    assert.match((await ownerLogin.get('/two-factor-challenge')).text, /Reset your password to sign in again/)
    assert.equal((await ownerLogin.get('/home')).location, '/login')
    const json = await ownerLogin.post('/two-factor-challenge', { __token: ownerLogin.csrf(), code: code(secret, 1) }, JSON_HEADERS)
    assert.equal(json.status, 429)
    assert.equal(json.json().code, 'E_TOO_MANY_REQUESTS')

    // A new password (the owner's session is still logged in): answers work again.
    await owner.get('/account')
    const changed = await owner.post('/account/password', { __token: owner.csrf(), current_password: PASSWORD, password: `${PASSWORD}-new`, password_confirmation: `${PASSWORD}-new` })
    assert.equal(changed.status, 302)
    const fresh = new Client(server.url)
    assert.equal((await fresh.submit('/login', '/login', { email, password: `${PASSWORD}-new` })).location, '/two-factor-challenge')
    await fresh.get('/two-factor-challenge')
    assert.equal((await fresh.post('/two-factor-challenge', { __token: fresh.csrf(), code: code(secret, 1) })).location, '/home')
  })
})
