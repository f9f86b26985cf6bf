/**
 * Black-box: turning TOTP on and off in a generated app (craft new + craft auth + migrate), over
 * HTTP, with the codes computed here by `otpauth` as an authenticator app would.
 * - The account page links to /account/two-factor; `craft auth`'s migration added the columns and
 *   the recovery codes table.
 * - The page shows an inline SVG QR code of `otpauth://totp/<APP_NAME>:<email>?secret=...`, the
 *   secret as text, and the code form; the secret is the same on every visit until TOTP is on.
 * - A wrong code does not turn it on (302 back with the field error; JSON 422 E_VALIDATION).
 * - The right code turns it on: the 10 recovery codes appear on the next page view only; the
 *   database holds only their SHA-256 and the secret only encrypted; auth:two_factor_enabled is
 *   audited and mailed. Of 20 simultaneous confirmations exactly one succeeds.
 * - Regenerating replaces every code. Turning it off needs a recent password confirmation and
 *   deletes the secret, the codes and the trusted devices; auth:two_factor_disabled is audited
 *   and mailed. `craft two-factor:disable <email>` does the same for an operator, and
 *   `craft two-factor:reencrypt` moves the stored secrets to a new APP_KEY.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { Secret, TOTP } from 'otpauth'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff, setWebGuard } from '../helpers/auth-config.js'
import { startSmtpPeer, mailText, type SmtpPeer } from '../helpers/smtp-peer.js'
import { PASSWORD, appDb, cookieValues, sha256 } from '../helpers/security-kit.js'

const PAGE = '/account/two-factor'
// Long enough for a confirmation's requests and mails on a busy machine; one test waits it out.
const CONFIRM_SECONDS = 15
const APP_NAME = 'Enrol Test'
const CODE_LIST = /<li><code>([0-9a-z]{4}(?:-[0-9a-z]{4}){3})<\/code><\/li>/g
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The current code of `secret`, as the user's phone shows it. */
function codeOf(secret: string, offsetSteps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offsetSteps * 30_000 })
}

/** A 6-digit code that is none of the accepted ones (now and a step either side). */
function wrongCode(secret: string): string {
  const taken = new Set([-1, 0, 1].map((d) => codeOf(secret, d)))
  let n = 0
  while (taken.has(String(n).padStart(6, '0'))) n++
  return String(n).padStart(6, '0')
}

function recoveryCodesOn(html: string): string[] {
  return [...html.matchAll(CODE_LIST)].map((m) => m[1]!)
}

/** The stored form of a code: SHA-256 of the 16 characters, upper case, without dashes. */
function hashOf(code: string): string {
  return sha256(code.replaceAll('-', '').toUpperCase())
}

describe('two-factor enrolment pages', () => {
  let app: TestApp
  let server: Server
  let smtp: SmtpPeer
  let db: Knex
  let seq = 0

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port), APP_NAME } })
    applyAuthSteps(app)
    budgetsOff(app)
    setWebGuard(app, { password_timeout: CONFIRM_SECONDS / 60 })
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await smtp?.close()
  })

  async function register(): Promise<{ client: Client; email: string; id: number }> {
    const email = `enrol${++seq}@example.test`
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Enrol Test', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.notEqual(r.location, '/register', 'registration failed')
    // Enrolling needs a verified address (the link of the registration mail, done here directly).
    await db('users').where('email', email).update({ email_verified_at: new Date() })
    // The pages are behind password.confirm; a registration is no confirmation.
    const confirmed = await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(confirmed.status, 302)
    const id = Number((await db('users').where('email', email).first('id')).id)
    return { client, email, id }
  }

  /** The secret the set-up page shows (as text, in groups of four). */
  async function pageSecret(client: Client): Promise<string> {
    const page = await client.get(PAGE)
    assert.equal(page.status, 200, `GET ${PAGE}: ${page.status} ${page.location ?? ''}`)
    const match = /<code class="secret"[^>]*>([A-Z2-7 ]+)<\/code>/.exec(page.text)
    assert.ok(match, 'no secret on the page')
    return match[1]!.replaceAll(' ', '')
  }

  /**
   * Waits for the "turned on" notice to `email`: the server must not be stopped while it is still
   * talking to the SMTP peer.
   */
  async function enabledMail(email: string): Promise<void> {
    await smtp.waitFor((m) => m.to.includes(email) && mailText(m.raw).includes('Two-factor authentication was turned on'))
  }

  /** Turns TOTP on through the page; the secret and the recovery codes shown. */
  async function enrol(client: Client, email: string): Promise<{ secret: string; codes: string[] }> {
    const secret = await pageSecret(client)
    const posted = await client.post(PAGE, { __token: client.csrf(), code: codeOf(secret) })
    assert.equal(posted.status, 302)
    assert.equal(posted.location, PAGE)
    const codes = recoveryCodesOn((await client.get(PAGE)).text)
    assert.equal(codes.length, 10, 'the recovery codes are not on the page')
    await enabledMail(email)
    return { secret, codes }
  }

  async function audit(type: string, user: number): Promise<{ details: string }[]> {
    for (let i = 0; i < 100; i++) {
      const found = await db('auth_events').where({ type, user_id: user })
      if (found.length > 0) return found
      await sleep(50)
    }
    return []
  }

  it('craft auth added the columns and the table; the account page links to the page', async () => {
    assert.ok(await db.schema.hasTable('two_factor_recovery_codes'))
    for (const column of ['two_factor_secret', 'two_factor_confirmed_at', 'two_factor_last_step']) assert.ok(await db.schema.hasColumn('users', column), column)
    const { client } = await register()
    const account = await client.get('/account')
    assert.match(account.text, /<a href="\/account\/two-factor">Two-factor authentication<\/a>/)
  })

  it('shows an inline SVG QR code and the secret, the same on every visit until it is on', async () => {
    const { client, email, id } = await register()
    const page = await client.get(PAGE)
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.match(page.text, /<svg [^>]*role="img"[^>]*aria-label="QR code[^"]*"/)
    assert.match(page.text, /<path fill="#000" d="(M\d+ \d+h\d+v1h-\d+z)+"\/>/)
    assert.doesNotMatch(page.text, /<img /)
    assert.match(page.text, /name="__token"/)
    const secret = await pageSecret(client)
    assert.match(secret, /^[A-Z2-7]{32}$/)
    assert.equal(Secret.fromBase32(secret).bytes.length, 20)
    const uri = /href="(otpauth:\/\/totp\/[^"]+)"/.exec(page.text)![1]!.replaceAll('&amp;', '&')
    assert.ok(uri.startsWith(`otpauth://totp/${encodeURIComponent(APP_NAME)}:${encodeURIComponent(email)}?`), uri)
    const query = new URL(uri).searchParams
    assert.equal(query.get('secret'), secret)
    assert.equal(query.get('issuer'), APP_NAME)
    assert.equal(await pageSecret(client), secret, 'a reload changed the secret')
    const json = (await client.get(PAGE, { accept: 'application/json' })).json().data
    assert.deepEqual(json, { enabled: false, secret, otpauth_url: uri })
    const row = await db('users').where('id', id).first()
    assert.equal(row.two_factor_confirmed_at, null)
    // The secret of an enrolment lives in the enrolling session until a code confirms it.
    assert.equal(row.two_factor_secret ?? null, null, 'the unconfirmed secret is on the account')
    for (const value of cookieValues(client)) assert.ok(!value.includes(secret), 'the secret in plain text in a cookie')
  })

  it('a wrong or malformed code does not turn it on', async () => {
    const { client, id } = await register()
    const secret = await pageSecret(client)
    const r = await client.post(PAGE, { __token: client.csrf(), code: wrongCode(secret) })
    assert.equal(r.status, 302)
    assert.equal(r.location, PAGE)
    const back = await client.get(PAGE)
    assert.match(back.text, /id="code-error">That code is not right/)
    assert.match(back.text, /aria-invalid="true"/)
    for (const code of [wrongCode(secret), '12345', 'abcdef', '']) {
      const json = await client.request('POST', PAGE, { form: { __token: client.csrf(), code }, headers: { accept: 'application/json' } })
      assert.equal(json.status, 422, code)
      assert.equal(json.json().code, 'E_VALIDATION')
      assert.ok(json.json().errors.code, JSON.stringify(json.json()))
    }
    const row = await db('users').where('id', id).first()
    assert.equal(row.two_factor_confirmed_at, null)
    assert.equal((await db('two_factor_recovery_codes').where('user_id', id)).length, 0)
    assert.equal(await pageSecret(client), secret)
  })

  it('the right code turns it on: codes shown once, stored hashed, audited and mailed', async () => {
    const { client, email, id } = await register()
    const secret = await pageSecret(client)
    // The POST redirects to the page that shows the codes (a reload of it makes no new ones).
    const posted = await client.post(PAGE, { __token: client.csrf(), code: codeOf(secret) })
    assert.equal(posted.status, 302)
    assert.equal(posted.location, PAGE)
    for (const code of recoveryCodesOn(posted.text)) assert.fail(`a code in the POST's answer: ${code}`)
    const shown = await client.get(PAGE)
    assert.equal(shown.status, 200)
    assert.equal(shown.headers.get('cache-control'), 'no-store')
    assert.match(shown.text, /Save your recovery codes now/)
    const codes = recoveryCodesOn(shown.text)
    assert.equal(codes.length, 10)
    assert.equal(new Set(codes).size, 10)
    assert.match(shown.text, /Two-factor authentication is <strong>on<\/strong>/)
    assert.match(shown.text, /Recovery codes left: <strong>10<\/strong>/)
    assert.ok(!shown.text.includes(secret), 'the secret is still shown')
    assert.doesNotMatch(shown.text, /<svg [^>]*role="img"/)
    // Once: the next view has none of them, and neither does any cookie.
    const again = await client.get(PAGE)
    assert.deepEqual(recoveryCodesOn(again.text), [])
    for (const code of codes) assert.ok(!again.text.includes(code))
    for (const value of cookieValues(client)) for (const code of codes) assert.ok(!value.includes(code) && !value.includes(code.replaceAll('-', '')))
    const json = (await client.get(PAGE, { accept: 'application/json' })).json().data
    assert.equal(json.enabled, true)
    assert.equal(json.recovery_codes_remaining, 10)
    assert.equal(json.secret, undefined)
    assert.equal(json.recovery_codes, undefined)

    const row = await db('users').where('id', id).first()
    assert.ok(row.two_factor_confirmed_at)
    assert.ok(!String(row.two_factor_secret).includes(secret))
    assert.ok(!String(row.two_factor_secret).toUpperCase().includes(secret.slice(0, 8)))
    const stored = await db('two_factor_recovery_codes').where('user_id', id)
    assert.deepEqual(stored.map((s) => s.code_hash).sort(), codes.map(hashOf).sort())
    const dump = JSON.stringify(stored).toLowerCase()
    for (const code of codes) assert.ok(!dump.includes(code) && !dump.includes(code.replaceAll('-', '')), 'a recovery code is stored in plain text')

    const [event] = await audit('auth:two_factor_enabled', id)
    assert.ok(event, 'auth:two_factor_enabled not audited')
    for (const code of codes) assert.ok(!event.details.includes(code))
    assert.ok(!event.details.includes(secret))
    await enabledMail(email)
  })

  it('a code cannot turn it on twice; of 20 simultaneous confirmations exactly one succeeds', async () => {
    const { client, email, id } = await register()
    const secret = await pageSecret(client)
    const token = client.csrf()
    const code = codeOf(secret)
    const results = await Promise.all(
      Array.from({ length: 20 }, () => client.request('POST', PAGE, { form: { __token: token, code }, headers: { accept: 'application/json' } })),
    )
    const ok = results.filter((r) => r.status === 200)
    assert.equal(ok.length, 1, results.map((r) => r.status).join(','))
    // The others: the code refused (422), or, once TOTP is on, this session (loaded before the
    // winner marked it) has no second factor to manage it with (403 E_MFA_REQUIRED).
    assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 422 || (r.status === 403 && r.json().code === 'E_MFA_REQUIRED')), results.map((r) => r.status).join(','))
    assert.equal(ok[0]!.headers.get('cache-control'), 'no-store')
    const body = ok[0]!.json().data
    assert.equal(body.enabled, true)
    assert.equal(body.recovery_codes, undefined, 'never in the POST answer')
    assert.equal(body.recovery_codes_url, PAGE)
    const stored = await db('two_factor_recovery_codes').where('user_id', id)
    assert.equal(stored.length, 10)
    // The winner moved the session to a new id (and CSRF token): this browser's next form has it.
    await client.get(PAGE)
    const later = await client.request('POST', PAGE, { form: { __token: client.csrf(), code: codeOf(secret, 1) }, headers: { accept: 'application/json' } })
    assert.equal(later.status, 422)
    assert.match(JSON.stringify(later.json()), /already on/)
    await enabledMail(email)
  })

  it('regenerating replaces every recovery code', async () => {
    const { client, email, id } = await register()
    const { codes: old } = await enrol(client, email)
    const r = await client.post('/account/two-factor/recovery-codes', { __token: client.csrf() })
    assert.equal(r.status, 302)
    assert.equal(r.location, PAGE)
    const page = await client.get(PAGE)
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.match(page.text, /New recovery codes made/)
    const fresh = recoveryCodesOn(page.text)
    assert.equal(fresh.length, 10)
    // A reload shows no codes and makes none.
    assert.deepEqual(recoveryCodesOn((await client.get(PAGE)).text), [], 'the new codes are shown again')
    assert.deepEqual((await db('two_factor_recovery_codes').where('user_id', id)).map((s) => s.code_hash).sort(), fresh.map(hashOf).sort())
    for (const code of fresh) assert.ok(!old.includes(code))
    const stored = (await db('two_factor_recovery_codes').where('user_id', id)).map((s) => s.code_hash).sort()
    assert.deepEqual(stored, fresh.map(hashOf).sort())
    for (const code of old) assert.ok(!stored.includes(hashOf(code)), 'an old code survived')
    const json = await client.request('POST', '/account/two-factor/recovery-codes', { form: { __token: client.csrf() }, headers: { accept: 'application/json' } })
    assert.equal(json.status, 200)
    assert.equal(json.headers.get('cache-control'), 'no-store')
    assert.equal(json.json().data.recovery_codes, undefined)
    const shownJson = (await client.get(json.json().data.recovery_codes_url, { accept: 'application/json' })).json().data
    assert.equal(shownJson.recovery_codes.length, 10)
    assert.deepEqual((await db('two_factor_recovery_codes').where('user_id', id)).map((s) => s.code_hash).sort(), (shownJson.recovery_codes as string[]).map(hashOf).sort())
    assert.equal((await client.get(PAGE, { accept: 'application/json' })).json().data.recovery_codes, undefined, 'shown once')
  })

  it('turning it off needs a recent password confirmation and a recent second factor, and deletes the secret, codes and trusted devices', async () => {
    const { client, email, id } = await register()
    const { secret } = await enrol(client, email)
    const token = client.csrf()
    // A device trusted to skip the second step.
    await db('user_tokens').insert({ user_id: id, purpose: 'two_factor_trust', token_hash: sha256(`trust-${id}`), email: null, created_at: new Date(), expires_at: new Date(Date.now() + 86_400_000) })
    await sleep(CONFIRM_SECONDS * 1000 + 500)
    const stale = await client.post('/account/two-factor/disable', { __token: token })
    assert.equal(stale.status, 302)
    assert.equal(stale.location, '/confirm-password')
    assert.ok((await db('users').where('id', id).first()).two_factor_confirmed_at, 'turned off without a confirmation')

    const confirmed = await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(confirmed.status, 302)
    const page = await client.get(PAGE)
    assert.match(page.text, /Turn off two-factor authentication/)
    // The factor shown at enrolment is as old as the password confirmation: step up first.
    const stepUp = await client.post('/account/two-factor/disable', { __token: client.csrf() }, { referer: `${server.url}${PAGE}` })
    assert.equal(stepUp.location, '/two-factor-challenge')
    assert.ok((await db('users').where('id', id).first()).two_factor_confirmed_at, 'turned off without a recent second factor')
    await client.get('/two-factor-challenge')
    const answered = await client.post('/two-factor-challenge', { __token: client.csrf(), code: codeOf(secret, 1) })
    assert.equal(answered.location, PAGE)
    await client.get(PAGE)
    const off = await client.post('/account/two-factor/disable', { __token: client.csrf() })
    assert.equal(off.status, 302)
    assert.equal(off.location, PAGE)
    const row = await db('users').where('id', id).first()
    assert.equal(row.two_factor_secret, null)
    assert.equal(row.two_factor_confirmed_at, null)
    assert.equal(row.two_factor_last_step, null)
    assert.equal((await db('two_factor_recovery_codes').where('user_id', id)).length, 0)
    assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'two_factor_trust' })).length, 0)
    // Off: the page offers a new set-up, with a new secret.
    const after = await client.get(PAGE)
    assert.match(after.text, /Two-factor authentication is <strong>off<\/strong>/)
    assert.ok(await audit('auth:two_factor_disabled', id).then((rows) => rows.length === 1))
    assert.ok(await smtp.waitFor((m) => m.to.includes(email) && mailText(m.raw).includes('Two-factor authentication was turned off')))
  })

  it('craft two-factor:disable <email> turns it off for a user who lost everything', async () => {
    const { client, email, id } = await register()
    await enrol(client, email)
    // This process waits for the command (spawnSync): the SMTP peer here could not answer it.
    const mailer = app.env.MAIL_DRIVER
    app.env.MAIL_DRIVER = 'log'
    const r = app.craft('two-factor:disable', email)
    app.env.MAIL_DRIVER = mailer!
    assert.equal(r.code, 0, r.stderr + r.stdout)
    assert.match(r.stdout, /turned off/)
    const row = await db('users').where('id', id).first()
    assert.equal(row.two_factor_secret, null)
    assert.equal(row.two_factor_confirmed_at, null)
    assert.equal((await db('two_factor_recovery_codes').where('user_id', id)).length, 0)
    assert.equal((await audit('auth:two_factor_disabled', id)).length, 1)
    const again = app.craft('two-factor:disable', email)
    assert.equal(again.code, 0)
    assert.match(again.stdout, /was not on/)
    const unknown = app.craft('two-factor:disable', 'nobody@example.test')
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /No user with the address/)
  })

  it('regenerating or the page need the login; regenerating needs TOTP on', async () => {
    const anonymous = new Client(server.url)
    const page = await anonymous.get(PAGE)
    assert.equal(page.status, 302)
    assert.match(page.location ?? '', /^\/login/)
    const { client } = await register()
    await client.get(PAGE)
    const r = await client.request('POST', '/account/two-factor/recovery-codes', { form: { __token: client.csrf() }, headers: { accept: 'application/json' } })
    assert.equal(r.status, 422)
    assert.equal(r.json().code, 'E_VALIDATION')
  })

  // Last: it re-keys the stored secrets, which the running server (on the old key) no longer reads.
  it('craft two-factor:reencrypt moves the secrets to a new APP_KEY, so the old one can go', async () => {
    const { client, email, id } = await register()
    await enrol(client, email)
    const before = (await db('users').where('id', id).first()).two_factor_secret
    const oldKey = /^APP_KEY=(.+)$/m.exec(app.read('.env'))![1]!.trim()
    const newKey = 'base64:' + Buffer.alloc(32, 9).toString('base64')
    const withKeys = (env: Record<string, string>) => {
      const saved = { ...app.env }
      Object.assign(app.env, env)
      try {
        return app.craft('two-factor:reencrypt')
      } finally {
        for (const k of Object.keys(env)) delete app.env[k]
        Object.assign(app.env, saved)
      }
    }
    const withSecrets = Number((await db('users').whereNotNull('two_factor_secret').count({ n: '*' }).first())!.n)
    const rotated = withKeys({ APP_KEY: newKey, APP_PREVIOUS_KEYS: oldKey })
    assert.equal(rotated.code, 0, rotated.stderr + rotated.stdout)
    assert.match(rotated.stdout, new RegExp(`${withSecrets} re-encrypted with APP_KEY, 0 already current, 0 unreadable`))
    const after = (await db('users').where('id', id).first()).two_factor_secret
    assert.notEqual(after, before)
    assert.match(after, /^v1\./)
    // The new key alone now reads every secret.
    const alone = withKeys({ APP_KEY: newKey })
    assert.equal(alone.code, 0, alone.stderr + alone.stdout)
    assert.match(alone.stdout, new RegExp(`0 re-encrypted with APP_KEY, ${withSecrets} already current, 0 unreadable`))
    // And the old key alone reads none of them.
    const old = withKeys({ APP_KEY: oldKey })
    assert.match(old.stdout, new RegExp(`0 re-encrypted with APP_KEY, 0 already current, ${withSecrets} unreadable`))
  })
})
