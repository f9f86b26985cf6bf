/**
 * Black-box: "remember me". The login form's `remember` checkbox sets `trowel_remember`; a browser
 * that lost its login (restart: only that cookie left) is logged in again with a fresh login and a
 * replaced remember token; a replaced token presented again within `remember_reuse_window` (10 s)
 * restores its successor's login (two tabs are not a thief), after it is theft (the device's logins
 * end, `auth:remember_reuse` is audited); concurrent restores are not theft and rotate once;
 * logout, a password reset and expiry end it; only hashes are stored.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { appDb, PASSWORD, sha256 } from '../helpers/security-kit.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The value a signed cookie carries (`s.<base64url payload>.<mac>`). */
function unsigned(packed: string): string {
  const raw = decodeURIComponent(packed)
  assert.ok(raw.startsWith('s.'), `not a signed cookie: ${raw}`)
  return Buffer.from(raw.slice(2, raw.lastIndexOf('.')), 'base64url').toString('utf8')
}

/** `<series>.<token>` of a trowel_remember cookie as the client holds it. */
function rememberParts(packed: string): { series: string; token: string } {
  const [series, token] = unsigned(packed).split('.')
  assert.ok(series && token)
  return { series, token }
}

function setCookie(r: HttpResult, name: string): string | undefined {
  return r.setCookies.find((line) => line.startsWith(`${name}=`))
}

/** Each feature turned off here except those this suite needs; budgets off (many requests from one address). */
function configure(app: TestApp, features: string): void {
  app.edit('config/auth.ts', (t) =>
    t
      .replace(/features: \[[^\]]*\]/, `features: ${features}`)
      .replace(/throttle: \{[\s\S]*?\n {2}\},/, 'throttle: { login: null, ip: null, account: null, register: null, reset: null, verify: null, confirm: null },'),
  )
}

describe('remember me', () => {
  let app: TestApp
  let server: Server
  let db: Knex

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    applyAuthSteps(app)
    configure(app, "['registration', 'reset_passwords', 'remember_me']")
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app.cleanup()
  })

  async function register(email: string): Promise<number> {
    const c = new Client(server.url)
    const r = await c.submit('/register', '/register', { name: 'Rem', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', r.text)
    const user = await db('users').where({ email }).first()
    // Registration logged that client in: end that login so each test counts only its own.
    await db('login_tokens').where('user_id', user.id).delete()
    return Number(user.id)
  }

  async function login(email: string, remember = true): Promise<{ client: Client; result: HttpResult }> {
    const client = new Client(server.url)
    const result = await client.submit('/login', '/login', { email, password: PASSWORD, ...(remember ? { remember: '1' } : {}) })
    assert.equal(result.location, '/home')
    return { client, result }
  }

  /** A browser restart: a new client that carries only this remember cookie (no login, no session). */
  function restarted(packedRemember: string): Client {
    const c = new Client(server.url)
    c.cookies.set('trowel_remember', packedRemember)
    return c
  }

  const rows = (userId: number) => db('remember_tokens').where('user_id', userId)

  it('the login page has a labelled "Remember me" checkbox named remember', async () => {
    const page = await new Client(server.url).get('/login')
    assert.match(page.text, /<input id="remember" name="remember" type="checkbox" value="1"/)
    assert.match(page.text, /<label[^>]*for="remember"[^>]*>[\s\S]*?Remember me<\/label>/)
  })

  it('login with remember=1 sets trowel_remember (HttpOnly, Lax, Max-Age 30 days) and stores only hashes', async () => {
    const id = await register('set@example.test')
    const { client, result } = await login('set@example.test')
    const line = setCookie(result, 'trowel_remember')
    assert.ok(line, 'no trowel_remember cookie')
    assert.match(line, /Max-Age=2592000/i)
    assert.match(line, /HttpOnly/i)
    assert.match(line, /SameSite=Lax/i)
    assert.doesNotMatch(line, /Secure/i, 'not over plain HTTP')
    const { series, token } = rememberParts(client.cookies.get('trowel_remember')!)
    const loginToken = unsigned(client.cookies.get('trowel_auth')!)
    const stored = await rows(id)
    assert.equal(stored.length, 1)
    assert.equal(stored[0].series_hash, sha256(series))
    assert.equal(stored[0].token_hash, sha256(token))
    assert.equal(stored[0].login_token_hash, sha256(loginToken), 'the series holds the login made with it')
    const expires = new Date(stored[0].expires_at).getTime()
    assert.ok(Math.abs(expires - (Date.now() + 43200 * 60_000)) < 120_000, 'expires after remember_lifetime')
    const dump = JSON.stringify([await db('remember_tokens').select('*'), await db('login_tokens').select('*')])
    for (const secret of [series, token, loginToken]) assert.ok(!dump.includes(secret), 'a raw secret is in the database')
  })

  it('login without remember sets no trowel_remember and stores nothing', async () => {
    const id = await register('norem@example.test')
    const { client, result } = await login('norem@example.test', false)
    assert.equal(setCookie(result, 'trowel_remember'), undefined)
    assert.equal(client.cookies.has('trowel_remember'), false)
    assert.equal((await rows(id)).length, 0)
  })

  it('after a browser restart the remember cookie logs in again: new login, token replaced, old login ended', async () => {
    const id = await register('restart@example.test')
    const { client } = await login('restart@example.test')
    const oldPacked = client.cookies.get('trowel_remember')!
    const old = rememberParts(oldPacked)
    const oldLoginHash = sha256(unsigned(client.cookies.get('trowel_auth')!))
    const browser = restarted(oldPacked)
    const home = await browser.get('/home')
    assert.equal(home.status, 200)
    assert.match(home.text, /Rem/)
    assert.ok(setCookie(home, 'trowel_remember'), 'the remember cookie was not replaced')
    assert.match(setCookie(home, 'trowel_remember')!, /Max-Age=2592000/i)
    assert.ok(setCookie(home, 'trowel_auth'), 'no new login cookie')
    const next = rememberParts(browser.cookies.get('trowel_remember')!)
    assert.equal(next.series, old.series, 'the series names the device')
    assert.notEqual(next.token, old.token)
    const [row] = await rows(id)
    assert.equal(row.token_hash, sha256(next.token))
    assert.equal(row.previous_hash, sha256(old.token))
    assert.ok(row.rotated_at)
    const newLoginHash = sha256(unsigned(browser.cookies.get('trowel_auth')!))
    assert.equal(row.login_token_hash, newLoginHash)
    const logins = (await db('login_tokens').where('user_id', id)).map((r) => r.token_hash)
    assert.ok(!logins.includes(oldLoginHash), 'the login the series held before is ended')
    assert.deepEqual(logins, [newLoginHash])
    // From now on the new login cookie carries the requests: the remember row is not touched.
    const again = await browser.get('/home')
    assert.equal(again.status, 200)
    assert.equal(setCookie(again, 'trowel_remember'), undefined)
    assert.equal((await rows(id))[0].token_hash, row.token_hash)
  })

  it('a login that expired (row gone) with the remember cookie still present is restored too', async () => {
    const id = await register('expiredlogin@example.test')
    const { client } = await login('expiredlogin@example.test')
    await db('login_tokens').where('user_id', id).delete()
    const home = await client.get('/home')
    assert.equal(home.status, 200)
    assert.ok(setCookie(home, 'trowel_auth'))
    assert.equal((await db('login_tokens').where('user_id', id)).length, 1)
  })

  it('a replaced token presented again within 10 s (another tab, a lost answer) restores the successor\'s login: no theft, no new login', async () => {
    const id = await register('replay@example.test')
    const { client } = await login('replay@example.test')
    const first = client.cookies.get('trowel_remember')!
    const restored = restarted(first)
    assert.equal((await restored.get('/home')).status, 200)
    const [row] = await rows(id)
    const logins = (await db('login_tokens').where('user_id', id)).map((r) => r.token_hash)
    assert.deepEqual(logins, [row.login_token_hash])
    // A request sent after the rotation's answer, with the replaced token.
    const again = await restarted(first).get('/home')
    assert.equal(again.status, 200, 'restored, not refused')
    assert.match(again.text, /Rem/)
    assert.equal(setCookie(again, 'trowel_auth'), undefined, 'no new login cookie')
    assert.equal(setCookie(again, 'trowel_remember'), undefined, 'the remember cookie is neither replaced nor cleared')
    assert.deepEqual((await db('login_tokens').where('user_id', id)).map((r) => r.token_hash), logins, 'the same login, no second one')
    assert.equal((await rows(id))[0].token_hash, row.token_hash, 'the series is not rotated again')
    assert.equal((await restored.get('/home')).status, 200, 'the device that restored stays logged in')
    await sleep(300)
    assert.equal((await db('auth_events').where({ type: 'auth:remember_reuse', user_id: id })).length, 0, 'not audited as theft')
  })

  it('a replaced token whose successor login has ended restores nothing (and is not theft)', async () => {
    const id = await register('ended@example.test')
    const { client } = await login('ended@example.test')
    const first = client.cookies.get('trowel_remember')!
    const restored = restarted(first)
    assert.equal((await restored.get('/home')).status, 200)
    await db('login_tokens').where('user_id', id).delete()
    const again = await restarted(first).get('/home')
    assert.equal(again.status, 302)
    assert.equal((await rows(id)).length, 1, 'the series is not ended')
  })

  it('the replaced token 11 s after its rotation is theft: both devices logged out, audited', async () => {
    const id = await register('window@example.test')
    const { client } = await login('window@example.test')
    const stolen = client.cookies.get('trowel_remember')!
    const thief = restarted(stolen)
    assert.equal((await thief.get('/home')).status, 200)
    await db('remember_tokens').where('user_id', id).update({ rotated_at: Date.now() - 11_000 })
    assert.equal((await restarted(stolen).get('/home')).status, 302)
    assert.equal((await rows(id)).length, 0, 'the series is ended')
    assert.equal((await thief.get('/home')).status, 302, 'the device that restored is logged out too')
    let reuse = 0
    for (let i = 0; i < 50 && reuse === 0; i++) {
      reuse = (await db('auth_events').where({ type: 'auth:remember_reuse', user_id: id })).length
      if (reuse === 0) await sleep(100)
    }
    assert.equal(reuse, 1)
  })

  it('a replaced token presented long after the window is theft: both devices logged out, audited', async () => {
    const id = await register('theft@example.test')
    const { client } = await login('theft@example.test')
    const stolen = client.cookies.get('trowel_remember')!
    // The thief restores first: the token is replaced and the thief holds the new cookies.
    const thief = restarted(stolen)
    assert.equal((await thief.get('/home')).status, 200)
    // Later (past the 10 s window), the owner's browser restarts with the replaced token.
    await db('remember_tokens').where('user_id', id).update({ rotated_at: Date.now() - 5 * 60_000 })
    const owner = restarted(stolen)
    const refused = await owner.get('/home')
    assert.equal(refused.status, 302)
    assert.match(String(refused.location), /^\/login/)
    assert.match(setCookie(refused, 'trowel_remember') ?? '', /Max-Age=0|Expires=Thu, 01 Jan 1970/i, 'the remember cookie is cleared')
    assert.equal((await rows(id)).length, 0, 'the series is ended')
    // The device holding the replaced-into cookies (the thief's login) is logged out as well.
    const thiefHome = await thief.get('/home')
    assert.equal(thiefHome.status, 302)
    assert.equal((await db('login_tokens').where('user_id', id)).length, 0)
    let events: { type: string; user_id: unknown }[] = []
    for (let i = 0; i < 50 && events.length === 0; i++) {
      events = await db('auth_events').where({ type: 'auth:remember_reuse', user_id: id }).select('type', 'user_id')
      if (events.length === 0) await sleep(100)
    }
    assert.equal(events.length, 1)
    assert.equal(Number(events[0]!.user_id), id)
  })

  it('a token the series never had is theft too', async () => {
    const id = await register('forged@example.test')
    const { client } = await login('forged@example.test')
    // The cookie is signed, so the test cannot forge one: it changes the row's token instead, which
    // makes the real cookie a known series with a token the series never had.
    await db('remember_tokens').where('user_id', id).update({ token_hash: sha256('something else'), previous_hash: null })
    const refused = await restarted(client.cookies.get('trowel_remember')!).get('/home')
    assert.equal(refused.status, 302)
    assert.equal((await rows(id)).length, 0)
    assert.equal((await db('login_tokens').where('user_id', id)).length, 0, 'the login the series held is ended')
  })

  it('20 simultaneous restores with the same cookie: exactly one rotation, every request logged in, one login, no theft', async () => {
    const id = await register('race@example.test')
    const { client } = await login('race@example.test')
    const packed = client.cookies.get('trowel_remember')!
    const old = rememberParts(packed)
    const results = await Promise.all(Array.from({ length: 20 }, () => restarted(packed).get('/home')))
    for (const r of results) assert.equal(r.status, 200, `status ${r.status} ${r.location ?? ''}`)
    const rotatedAnswers = results.filter((r) => setCookie(r, 'trowel_remember') && !/Max-Age=0/i.test(setCookie(r, 'trowel_remember')!))
    assert.equal(rotatedAnswers.length, 1, 'exactly one answer carries a replaced token')
    const stored = await rows(id)
    assert.equal(stored.length, 1)
    assert.equal(stored[0].previous_hash, sha256(old.token))
    assert.equal((await db('login_tokens').where('user_id', id)).length, 1, 'one login for the device, not twenty')
    await sleep(300)
    assert.equal((await db('auth_events').where({ type: 'auth:remember_reuse', user_id: id })).length, 0)
  })

  it('logout deletes the row and clears the cookie; the old cookie no longer logs in', async () => {
    const id = await register('logout@example.test')
    const { client } = await login('logout@example.test')
    const packed = client.cookies.get('trowel_remember')!
    await client.get('/home')
    const out = await client.post('/logout', { __token: client.csrf() })
    assert.equal(out.location, '/login')
    assert.match(setCookie(out, 'trowel_remember') ?? '', /Max-Age=0|Expires=Thu, 01 Jan 1970/i)
    assert.equal((await rows(id)).length, 0)
    const replay = await restarted(packed).get('/home')
    assert.equal(replay.status, 302)
    assert.match(setCookie(replay, 'trowel_remember') ?? '', /Max-Age=0|Expires=Thu, 01 Jan 1970/i, 'an unknown series clears the cookie')
  })

  it('a password reset ends remember me', async () => {
    const id = await register('reset@example.test')
    const { client } = await login('reset@example.test')
    const packed = client.cookies.get('trowel_remember')!
    const mailBefore = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log').length : 0
    const requested = await new Client(server.url).submit('/password_reset', '/password_reset', { email: 'reset@example.test' })
    assert.equal(requested.status, 302)
    let link: string | undefined
    for (let i = 0; i < 100 && !link; i++) {
      const mail = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log').slice(mailBefore) : ''
      link = /\/change_password\/([A-Za-z0-9_-]{43})/.exec(mail)?.[1]
      if (!link) await sleep(100)
    }
    assert.ok(link, 'no reset mail')
    const changed = await new Client(server.url).submit(`/change_password/${link}`, `/change_password/${link}`, { password: `${PASSWORD} 2`, password_confirmation: `${PASSWORD} 2` })
    assert.equal(changed.location, '/login', `${changed.status} ${changed.text.slice(0, 3000)}`)
    assert.equal((await rows(id)).length, 0)
    const replay = await restarted(packed).get('/home')
    assert.equal(replay.status, 302)
  })

  it('an expired remember token does not log in, and is deleted', async () => {
    const id = await register('expired@example.test')
    const { client } = await login('expired@example.test')
    await db('remember_tokens').where('user_id', id).update({ expires_at: new Date(Date.now() - 60_000) })
    const r = await restarted(client.cookies.get('trowel_remember')!).get('/home')
    assert.equal(r.status, 302)
    assert.match(String(r.location), /^\/login/)
    assert.equal((await rows(id)).length, 0)
  })

  it('a new login on the same browser ends its earlier remember-me series', async () => {
    const id = await register('relogin@example.test')
    const { client } = await login('relogin@example.test')
    const first = client.cookies.get('trowel_remember')!
    await client.get('/home') // logged in: /login would send it here; take the CSRF token from this page
    const again = await client.post('/login', { __token: client.csrf(), email: 'relogin@example.test', password: PASSWORD })
    assert.equal(again.status, 302)
    assert.equal((await rows(id)).length, 0, 'a login without the box ends the old series')
    assert.equal(client.cookies.has('trowel_remember'), false)
    assert.equal((await restarted(first).get('/home')).status, 302)
  })
})

describe('remember me turned off (no remember_me in GUARDS.features)', () => {
  let app: TestApp
  let server: Server
  let db: Knex

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    configure(app, "['registration', 'reset_passwords']")
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app.cleanup()
  })

  it('shows no checkbox and ignores remember=1', async () => {
    const c = new Client(server.url)
    const page = await c.get('/login')
    assert.doesNotMatch(page.text, /name="remember"/)
    await c.submit('/register', '/register', { name: 'Off', email: 'off@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    const browser = new Client(server.url)
    const r = await browser.submit('/login', '/login', { email: 'off@example.test', password: PASSWORD, remember: '1' })
    assert.equal(r.location, '/home')
    assert.equal(setCookie(r, 'trowel_remember'), undefined)
    assert.equal((await db('remember_tokens')).length, 0)
  })
})
