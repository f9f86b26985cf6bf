/**
 * Black-box: the account pages of a generated app (craft auth, Auth.routes(), the JWT API
 * installed too). The profile page and its forms; saving the name (and refusing a new e-mail
 * there); changing the password (current password checked within the `confirm` budget, other
 * devices and the API token ended, this device kept); the activity page (the user's own last 50
 * events, newest first, nothing secret); deleting the account (behind password.confirm; every
 * row that authenticates the user gone). Every event emitted shows up in auth_events.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff, setWebGuard } from '../helpers/auth-config.js'
import { PASSWORD, appDb } from '../helpers/security-kit.js'

const NEW_PASSWORD = 'a brand new passphrase 42'
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0'
/** Minutes a typed password counts for `password.confirm` in this app (6 seconds). */
const CONFIRM_SECONDS = 6
/** The login page (the `auth` middleware may add `?next=`). */
const LOGIN = /^\/login(\?|$)/

interface AuditRow {
  user_id: number | null
  type: string
  details: string
  ip: string | null
  user_agent: string | null
}

describe('account pages', () => {
  let app: TestApp
  let server: Server
  let db: Knex

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    applyAuthSteps(app)
    applyApiSteps(app)
    // Every request comes from 127.0.0.1: the per-address budgets would trip. `confirm` stays
    // (per account) for the throttling test; the other tests use an account each.
    budgetsOff(app, ['confirm'])
    setWebGuard(app, { password_timeout: CONFIRM_SECONDS / 60 })
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
  })

  async function register(email: string, name = 'Ada Lovelace', ua?: string): Promise<Client> {
    const client = new Client(server.url)
    if (ua) client.extraHeaders['user-agent'] = ua
    const r = await client.submit('/register', '/register', { name, email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.status, 302, r.text)
    assert.notEqual(r.location, '/register', 'registration failed')
    return client
  }

  async function login(email: string, password = PASSWORD, extra: Record<string, string> = {}, ua?: string): Promise<Client> {
    const client = new Client(server.url)
    if (ua) client.extraHeaders['user-agent'] = ua
    const r = await client.submit('/login', '/login', { email, password, ...extra })
    assert.equal(r.location, '/home', `login of ${email} failed`)
    return client
  }

  async function userId(email: string): Promise<number> {
    const row = await db('users').where('email', email).first('id')
    assert.ok(row, `no user ${email}`)
    return Number(row.id)
  }

  /** The audit rows of `type` for `user`, once `count` exist (they are written after the answer). */
  async function events(type: string, user: number, count = 1): Promise<AuditRow[]> {
    let found: AuditRow[] = []
    for (let i = 0; i < 100; i++) {
      found = (await db('auth_events').where({ type, user_id: user }).orderBy('id')) as AuditRow[]
      if (found.length >= count) break
      await new Promise((r) => setTimeout(r, 50))
    }
    return found
  }

  /** POSTs a form of /account with its CSRF token. */
  function submitAccount(client: Client, action: string, form: Record<string, string>): Promise<HttpResult> {
    return client.submit('/account', action, form)
  }

  /** The text of the field error with this id on the page, or null. */
  function fieldError(html: string, id: string): string | null {
    return new RegExp(`<p class="field-error" id="${id}">([^<]*)</p>`).exec(html)?.[1] ?? null
  }

  it('GET /account: the profile page with its forms, never cached; visitors go to /login', async () => {
    const client = await register('page@example.test', 'Page Person')
    const page = await client.get('/account')
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.match(page.text, /Page Person/)
    assert.match(page.text, /page@example\.test/)
    assert.match(page.text, /not verified/)
    for (const action of ['/account/profile', '/account/email', '/account/password', '/account/delete']) {
      assert.match(page.text, new RegExp(`<form method="POST" action="${action}"`), action)
    }
    for (const field of ['name', 'email', 'password', 'current_password', 'password_confirmation', '__token']) {
      assert.match(page.text, new RegExp(`name="${field}"`), field)
    }
    // Every visible field has a label.
    for (const id of ['name', 'profile-email', 'new-email', 'email-password', 'current_password', 'password', 'password_confirmation']) {
      assert.match(page.text, new RegExp(`<label for="${id}">`), id)
    }
    assert.match(page.text, /href="\/account\/devices"/)
    assert.match(page.text, /href="\/account\/activity"/)

    const visitor = new Client(server.url)
    for (const path of ['/account', '/account/devices', '/account/activity']) {
      const r = await visitor.get(path)
      assert.equal(r.status, 302, path)
      assert.match(r.location ?? '', LOGIN, path)
    }
  })

  it('POST /account/profile saves the name; an invalid one goes back with the error and the input kept', async () => {
    const client = await register('profile@example.test', 'Old Name')
    const ok = await submitAccount(client, '/account/profile', { form: 'profile', name: 'New Name', email: 'PROFILE@example.test ' })
    assert.equal(ok.status, 302)
    assert.equal(ok.location, '/account')
    const after = await client.get('/account')
    assert.match(after.text, /Profile saved\./)
    assert.match(after.text, /value="New Name"/)
    assert.equal((await db('users').where('email', 'profile@example.test').first('name')).name, 'New Name')

    const long = 'x'.repeat(256)
    const bad = await submitAccount(client, '/account/profile', { form: 'profile', name: long, email: 'profile@example.test' })
    assert.equal(bad.status, 302)
    assert.equal(bad.location, '/account')
    const back = await client.get('/account')
    assert.ok(fieldError(back.text, 'name-error'), 'no error next to the name')
    assert.match(back.text, new RegExp(`value="${long}"`), 'the input was not kept')
    assert.match(back.text, /id="name"[^>]*aria-invalid="true"/)
    assert.equal((await db('users').where('email', 'profile@example.test').first('name')).name, 'New Name')

    const missing = await submitAccount(client, '/account/profile', { form: 'profile', name: '' })
    assert.equal(missing.location, '/account')
    assert.ok(fieldError((await client.get('/account')).text, 'name-error'))

    const json = await client.request('POST', '/account/profile', { form: { __token: client.csrf(), name: '' }, headers: { accept: 'application/json' } })
    assert.equal(json.status, 422)
    assert.ok(json.json().errors.name)
  })

  it('the profile form does not change the e-mail: its address is read-only, and a crafted one is a field error pointing to the change-e-mail form', async () => {
    const client = await register('keep@example.test', 'Keeper')
    const form = await client.get('/account')
    assert.match(form.text, /<input id="profile-email" type="email" value="keep@example\.test" readonly/)
    const r = await submitAccount(client, '/account/profile', { form: 'profile', name: 'Someone Else', email: 'other@example.test' })
    assert.equal(r.location, '/account')
    const page = await client.get('/account')
    const error = fieldError(page.text, 'profile-email-error')
    assert.ok(error && /Change e-mail/.test(error), `error: ${error}`)
    assert.match(page.text, /id="profile-email" type="email" value="keep@example\.test"/, 'the field shows the account\'s address')
    assert.equal(fieldError(page.text, 'new-email-error'), null, 'the error was shown on the change-e-mail form too')
    const row = await db('users').where('id', await userId('keep@example.test')).first('name', 'email')
    assert.deepEqual({ name: row.name, email: row.email }, { name: 'Keeper', email: 'keep@example.test' }, 'something was saved')
  })

  it('POST /account/password: a wrong current password or an invalid new one changes nothing', async () => {
    const client = await register('pw-bad@example.test')
    const wrong = await submitAccount(client, '/account/password', { form: 'password', current_password: 'not my password', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(wrong.status, 302)
    assert.equal(wrong.location, '/account')
    const page = await client.get('/account')
    assert.equal(fieldError(page.text, 'current_password-error'), 'The current password is incorrect.')
    assert.doesNotMatch(page.text, /not my password/)
    assert.doesNotMatch(page.text, new RegExp(NEW_PASSWORD))

    const invalid = await submitAccount(client, '/account/password', { form: 'password', current_password: PASSWORD, password: 'short', password_confirmation: 'other' })
    assert.equal(invalid.location, '/account')
    const page2 = await client.get('/account')
    assert.ok(fieldError(page2.text, 'password-error'), 'no error next to the new password')
    assert.equal(fieldError(page2.text, 'email-password-error'), null, 'the error was shown on the change-e-mail form')
    assert.equal(fieldError(page2.text, 'current_password-error'), null, 'the right current password was reported wrong')

    const mismatch = await submitAccount(client, '/account/password', { form: 'password', current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: `${NEW_PASSWORD}!` })
    assert.equal(mismatch.location, '/account')
    assert.ok(fieldError((await client.get('/account')).text, 'password-error'))

    const common = await submitAccount(client, '/account/password', { form: 'password', current_password: PASSWORD, password: 'password123', password_confirmation: 'password123' })
    assert.equal(common.location, '/account')
    assert.ok(fieldError((await client.get('/account')).text, 'password-error'), 'a common password was accepted')

    // The password is still the old one.
    await login('pw-bad@example.test', PASSWORD)
    assert.equal((await db('auth_events').where({ type: 'auth:password_changed', user_id: await userId('pw-bad@example.test') })).length, 0)
  })

  it('POST /account/password: 20 wrong attempts at once: at most 5 are checked, the rest are throttled', async () => {
    const client = await register('pw-flood@example.test')
    await client.get('/account')
    const token = client.csrf()
    const form = { __token: token, current_password: 'guess guess guess', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.request('POST', '/account/password', { form, headers: { accept: 'application/json' } })))
    const statuses = answers.map((a) => a.status)
    const checked = statuses.filter((s) => s === 422).length
    const throttled = answers.filter((a) => a.status === 429)
    assert.equal(checked + throttled.length, 20, statuses.join(','))
    assert.ok(checked <= 5, `${checked} passwords were checked`)
    assert.ok(throttled.length >= 15)
    assert.equal(throttled[0]!.json().code, 'E_TOO_MANY_REQUESTS')
    assert.ok(Number(throttled[0]!.headers.get('retry-after')) >= 1)
    // The form gets the message; even the right password is not checked now.
    const right = await submitAccount(client, '/account/password', { form: 'password', current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(right.location, '/account')
    assert.match((await client.get('/account')).text, /Too many attempts/)
    await login('pw-flood@example.test', PASSWORD)
    assert.ok((await events('auth:throttled', await userId('pw-flood@example.test'))).length >= 1)
  })

  it('POST /account/password: the new password works, this device stays, other devices and the API token end', async () => {
    const email = 'pw-ok@example.test'
    const a = await register(email)
    const b = await login(email)
    const remembered = await login(email, PASSWORD, { remember: 'on' })
    const issued = await new Client(server.url).postJson('/api/auth', { username: email, password: PASSWORD })
    assert.equal(issued.status, 200, issued.text)
    // Renewing works before the change (so the refusal below is the change's doing).
    const renewed = await new Client(server.url).postJson('/api/reauth', { token: issued.json().data })
    assert.equal(renewed.status, 200, renewed.text)
    const jwt = renewed.json().data as string
    const id = await userId(email)
    assert.ok((await db('users').where('id', id).first('api_token')).api_token, 'the API token was not stored')

    await a.get('/account')
    const csrfBefore = a.csrf()
    const r = await a.post('/account/password', { __token: csrfBefore, form: 'password', current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(r.status, 302)
    assert.equal(r.location, '/account')
    const page = await a.get('/account')
    assert.equal(page.status, 200, 'this device was logged out')
    assert.match(page.text, /Password changed\. Your other devices have been logged out\./)
    assert.notEqual(a.csrf(), csrfBefore, 'the session was not regenerated')

    for (const other of [b, remembered]) {
      const gone = await other.get('/account')
      assert.equal(gone.status, 302)
      assert.match(gone.location ?? '', LOGIN)
    }
    assert.equal((await db('login_tokens').where('user_id', id)).length, 1)
    assert.equal((await db('remember_tokens').where('user_id', id)).length, 0)
    assert.equal((await db('users').where('id', id).first('api_token')).api_token, null)
    // The API token's stored digest is gone: it can no longer be renewed.
    const reauth = await new Client(server.url).postJson('/api/reauth', { token: jwt })
    assert.equal(reauth.status, 401, 'the old API token can still be renewed')

    const old = await new Client(server.url).submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(old.location, '/login', 'the old password still works')
    await login(email, NEW_PASSWORD)
    const audit = await events('auth:password_changed', id)
    assert.equal(audit.length, 1)
    assert.doesNotMatch(JSON.stringify(audit), new RegExp(NEW_PASSWORD))
    // It counts as a typed password: a guarded action needs no confirmation now.
    const others = await a.submit('/account/devices', '/account/devices/revoke-others', {})
    assert.equal(others.location, '/account/devices')
  })

  it('GET /account/activity: this user\'s last 50 events, newest first, nothing of another user\'s, nothing secret', async () => {
    const email = 'activity@example.test'
    await register(email, 'Active', FIREFOX)
    const stranger = await register('stranger@example.test', 'Stranger', 'Stranger-Agent/7.0')
    await stranger.submit('/home', '/logout', {})
    // A few at a time: one client's password checks wait in one line, at most GUARDS.hashing.max_wait.
    for (let i = 0; i < 52; i += 4) {
      const batch = Array.from({ length: Math.min(4, 52 - i) }, () => new Client(server.url).submit('/login', '/login', { email, password: 'wrong password here' }))
      for (const f of await Promise.all(batch)) assert.match(f.location ?? '', LOGIN)
    }
    const id = await userId(email)
    await events('auth:login_failed', id, 52)
    const fresh = await login(email, PASSWORD, {}, FIREFOX)
    await events('auth:login_succeeded', id)

    const page = await fresh.get('/account/activity')
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('cache-control'), 'no-store')
    const items = [...page.text.matchAll(/<li>\s*<strong>([^<]*)<\/strong>/g)].map((m) => m[1])
    assert.equal(items.length, 50, `${items.length} events shown`)
    assert.equal(items[0], 'Signed in', 'the newest event is not first')
    assert.ok(items.includes('Failed sign-in'))
    assert.match(page.text, /Firefox 132 on Windows/)
    assert.match(page.text, /127\.0\.0\.1|::1/)
    assert.doesNotMatch(page.text, /Stranger/, 'another user\'s events are shown')
    assert.doesNotMatch(page.text, /wrong password here/)
    for (const value of fresh.cookies.values()) assert.ok(!page.text.includes(decodeURIComponent(value)), 'a cookie value is on the page')
    for (const row of await db('login_tokens').where('user_id', id)) assert.ok(!page.text.includes(row.token_hash), 'a login token hash is on the page')

    const json = await fresh.get('/account/activity', { accept: 'application/json' })
    assert.equal(json.json().data.length, 50)
    assert.equal(json.json().data[0].label, 'Signed in')
  })

  it('POST /account/delete: behind password.confirm; deletes the user and everything that logs them in', async () => {
    const email = 'delete-me@example.test'
    const a = await register(email, 'Leaving')
    const id = await userId(email)
    const b = await login(email, PASSWORD, { remember: 'on' })
    await new Client(server.url).submit('/password_reset', '/password_reset', { email })
    const api = await new Client(server.url).postJson('/api/auth', { username: email, password: PASSWORD })
    assert.equal(api.status, 200)
    const bystander = await register('bystander@example.test', 'Stays')
    const bystanderId = await userId('bystander@example.test')
    // Registration mailed a verification link (a user_tokens row), "remember me" left a row, the reset one.
    assert.ok((await db('user_tokens').where('user_id', id)).length >= 1, 'no user_tokens row to delete')
    assert.equal((await db('remember_tokens').where('user_id', id)).length, 1)
    assert.equal((await db('password_resets').where('email', email)).length, 1)
    assert.equal((await db('login_tokens').where('user_id', id)).length, 2)

    // A confirmation older than password_timeout: JSON 423, a form to /confirm-password; nothing deleted.
    await new Promise((r) => setTimeout(r, CONFIRM_SECONDS * 1000 + 500))
    await a.get('/account')
    const json = await a.request('POST', '/account/delete', { form: { __token: a.csrf() }, headers: { accept: 'application/json' } })
    assert.equal(json.status, 423)
    assert.equal(json.json().code, 'E_PASSWORD_CONFIRMATION_REQUIRED')
    const stale = await submitAccount(a, '/account/delete', {})
    assert.equal(stale.status, 302)
    assert.equal(stale.location, '/confirm-password')
    assert.ok(await db('users').where('id', id).first(), 'deleted without a fresh confirmation')

    const confirmed = await a.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(confirmed.status, 302)
    const r = await submitAccount(a, '/account/delete', {})
    assert.equal(r.status, 302)
    assert.equal(r.location, '/')
    assert.ok(r.setCookies.some((c) => c.startsWith('trowel_auth=;') || /^trowel_auth=[^;]*;.*Max-Age=0/i.test(c)), 'the login cookie was not cleared')
    assert.match((await a.get('/login')).text, /Your account has been deleted\./)

    assert.equal(await db('users').where('id', id).first(), undefined)
    for (const table of ['login_tokens', 'remember_tokens', 'user_tokens']) {
      assert.equal((await db(table).where('user_id', id)).length, 0, table)
    }
    assert.equal((await db('password_resets').where('email', email)).length, 0)
    for (const client of [a, b]) {
      const gone = await client.get('/account')
      assert.match(gone.location ?? '', LOGIN)
    }
    const again = await new Client(server.url).submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(again.location, '/login', 'a deleted account can still log in')
    const deleted = await events('auth:account_deleted', id)
    assert.equal(deleted.length, 1)
    // Nobody else was touched.
    assert.ok(await db('users').where('id', bystanderId).first())
    assert.equal((await bystander.get('/account')).status, 200)
  })
})
