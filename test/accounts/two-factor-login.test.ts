/**
 * Black-box: the second step of a web login. A correct password of a user with TOTP logs nobody
 * in: 302 /two-factor-challenge, then a right code finishes the login (with "remember me" and
 * `next`), a wrong one goes back with an error and `auth:two_factor_failed`, a code works once, a
 * recovery code works once (of 20 at once exactly one), 5 wrong answers a minute are throttled
 * per pending login and per user, "Trust this device for 30 days" skips the step until the user
 * forgets the devices or logs every other device out. The pending login's 5 minutes are checked
 * on PendingLogins with a clock of its own (no waiting).
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
import { Session } from '../../src/session/session.js'
import { PendingLogins, PENDING_LOGIN_KEY } from '../../src/auth/two-factor/pending-login.js'
import type { HttpContext } from '../../src/http/context.js'

/** The code of `secret` one time step ahead: newer than the enrolment's, inside the accepted window. */
function nextCode(secret: string): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
  return totp.generate({ timestamp: Date.now() + 30_000 })
}

function nowCode(secret: string): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate()
}

describe('PendingLogins (the pending login lives 5 minutes)', () => {
  function fakeContext(): HttpContext {
    return { hasSession: true, session: new Session(null) } as unknown as HttpContext
  }

  it('is pending until 5 minutes have passed, then expired and forgotten', () => {
    let now = 1_700_000_000_000
    const pending = new PendingLogins({ now: () => now })
    const ctx = fakeContext()
    assert.equal(pending.current(ctx).state, 'none')
    const login = pending.start(ctx, 7, 'web', { remember: true, next: '/account' })
    assert.match(login.id, /^[A-Za-z0-9_-]{20,}$/)
    now += 299_999
    const found = pending.current(ctx)
    assert.equal(found.state, 'pending')
    assert.deepEqual(found.state === 'pending' && { ...found.login }, { ...login })
    now += 1
    assert.equal(pending.current(ctx).state, 'expired')
    assert.equal(ctx.session.has(PENDING_LOGIN_KEY), false, 'the expired login is forgotten')
    assert.equal(pending.current(ctx).state, 'none')
  })

  it('each pending login gets its own random id; amend keeps it; tampered values are dropped', () => {
    const pending = new PendingLogins()
    const ctx = fakeContext()
    const a = pending.start(ctx, 1, 'web')
    const b = pending.start(ctx, 1, 'web')
    assert.notEqual(a.id, b.id)
    pending.amend(ctx, { remember: true, next: '/x' })
    const found = pending.current(ctx)
    assert.ok(found.state === 'pending' && found.login.id === b.id && found.login.remember && found.login.next === '/x')
    ctx.session.put(PENDING_LOGIN_KEY, { id: 'x', userId: 1 })
    assert.equal(pending.current(ctx).state, 'none')
    // A clock that went back is not a pending login either.
    let now = 1000
    const skewed = new PendingLogins({ now: () => now })
    skewed.start(ctx, 1, 'web')
    now = 0
    assert.equal(skewed.current(ctx).state, 'expired')
  })
})

describe('the second step of a web login', () => {
  let app: TestApp
  let server: Server
  let db: Knex

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    applyAuthSteps(app)
    // Every request comes from 127.0.0.1: the per-address budgets would trip. `two_factor` stays on.
    budgetsOff(app, ['two_factor'])
    app.edit('routes/web.ts', (t) =>
      t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/vault', (ctx) => `vault of ${ctx.auth.user().name}`).middleware(['auth', 'mfa']),"),
    )
    if (!app.read('routes/web.ts').includes("import { Route }")) app.edit('routes/web.ts', (t) => `import { Route } from 'trowel'\n${t}`)
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
  })

  async function userId(email: string): Promise<number> {
    return Number((await db('users').where('email', email).first('id')).id)
  }

  async function audit(type: string, user: number, count = 1): Promise<unknown[]> {
    let found: unknown[] = []
    for (let i = 0; i < 100; i++) {
      found = await db('auth_events').where({ type, user_id: user })
      if (found.length >= count) break
      await new Promise((r) => setTimeout(r, 50))
    }
    return found
  }

  /** Registers `email`, turns TOTP on through the account page; the secret and recovery codes. */
  async function enrol(email: string): Promise<{ secret: string; codes: string[]; id: number; client: Client }> {
    const client = new Client(server.url)
    let r = await client.submit('/register', '/register', { name: 'Two Step', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', r.text)
    await db('users').where('email', email).update({ email_verified_at: new Date() })
    r = await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(r.status, 302)
    const page = await client.get('/account/two-factor')
    assert.equal(page.status, 200, page.text)
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
    assert.ok(secret, 'no secret on the page')
    r = await client.post('/account/two-factor', { __token: client.csrf(), code: nowCode(secret) }, { accept: 'application/json' })
    assert.equal(r.status, 200, r.text)
    const codes = (await client.get('/account/two-factor', { accept: 'application/json' })).json().data.recovery_codes as string[]
    assert.equal(codes.length, 10)
    return { secret, codes, id: await userId(email), client }
  }

  /** A new browser that typed the right password: it is at the challenge, logged in as nobody. */
  async function passwordStep(email: string, extra: Record<string, string> = {}, client = new Client(server.url)): Promise<Client> {
    const r = await client.submit('/login', '/login', { email, password: PASSWORD, ...extra })
    assert.equal(r.status, 302)
    assert.equal(r.location, '/two-factor-challenge', 'the password alone must not log in')
    return client
  }

  async function answer(client: Client, form: Record<string, string>) {
    await client.get('/two-factor-challenge')
    return client.post('/two-factor-challenge', { __token: client.csrf(), ...form })
  }

  it('a password logs nobody in; the right code finishes the login as a password login would', async () => {
    const email = 'flow@example.test'
    const { secret, id } = await enrol(email)
    const client = await passwordStep(email)
    assert.equal((await client.get('/home')).location, '/login', 'nobody is logged in yet')
    assert.equal(client.cookies.has('trowel_auth'), false)
    const page = await client.get('/two-factor-challenge')
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.match(page.text, /name="code"/)
    assert.match(page.text, /name="recovery_code"/)
    assert.match(page.text, /name="trust"[^>]*>\s*Trust this device for 30 days/)
    assert.doesNotMatch(page.text, /data-passkey-login/, 'no passkey: no passkey button')
    const before = client.cookies.get('trowel_session')
    const succeeded = (await audit('auth:login_succeeded', id, 0)).length
    const r = await client.post('/two-factor-challenge', { __token: client.csrf(), code: nextCode(secret) })
    assert.equal(r.status, 302, r.text)
    assert.equal(r.location, '/home')
    assert.ok(client.cookies.has('trowel_auth'), 'logged in')
    if (before) assert.notEqual(client.cookies.get('trowel_session'), before, 'a new session id')
    const home = await client.get('/home')
    assert.equal(home.status, 200)
    assert.match(home.text, /Two Step/)
    // The login has a second factor: `mfa` lets it through.
    assert.equal((await client.get('/vault')).status, 200)
    assert.equal((await audit('auth:login_succeeded', id, succeeded + 1)).length, succeeded + 1, 'the finished login is auth:login_succeeded')
    // The challenge has nothing left to do.
    assert.equal((await client.get('/two-factor-challenge')).location, '/home')
  })

  it('honours "remember me" and next', async () => {
    const email = 'remember@example.test'
    const { secret } = await enrol(email)
    const client = new Client(server.url)
    await client.get('/login?next=%2Faccount')
    const r0 = await client.post('/login', { __token: client.csrf(), email, password: PASSWORD, remember: '1', next: '/account' })
    assert.equal(r0.location, '/two-factor-challenge')
    assert.equal(client.cookies.has('trowel_remember'), false)
    const r = await answer(client, { code: nextCode(secret) })
    assert.equal(r.location, '/account')
    assert.ok(client.cookies.has('trowel_remember'), 'remember me kept through the second step')
  })

  it('a password-only login (no TOTP) has amr pwd: mfa sends it to enrol', async () => {
    const client = new Client(server.url)
    await client.submit('/register', '/register', { name: 'Plain', email: 'plain@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    const fresh = new Client(server.url)
    const r = await fresh.submit('/login', '/login', { email: 'plain@example.test', password: PASSWORD })
    assert.equal(r.location, '/home')
    assert.equal((await fresh.get('/vault')).location, '/account/two-factor')
  })

  it('a wrong code: back with an error, auth:two_factor_failed, nobody logged in', async () => {
    const email = 'wrong@example.test'
    const { secret, id } = await enrol(email)
    const client = await passwordStep(email)
    const right = nextCode(secret)
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0')
    const r = await answer(client, { code: wrong })
    assert.equal(r.status, 302)
    assert.equal(r.location, '/two-factor-challenge')
    const page = await client.get('/two-factor-challenge')
    assert.match(page.text, /The code is invalid or has already been used\./)
    assert.match(page.text, /aria-invalid="true"/)
    assert.equal((await client.get('/home')).location, '/login')
    const failed = (await audit('auth:two_factor_failed', id)) as { details: string }[]
    assert.equal(failed.length, 1)
    assert.match(String(failed[0]!.details), /totp/)
    // JSON: 422 with the field's message.
    const json = await client.post('/two-factor-challenge', { __token: client.csrf(), code: wrong }, { accept: 'application/json' })
    assert.equal(json.status, 422)
    assert.equal(json.json().code, 'E_VALIDATION')
    assert.ok(json.json().errors.code)
    // Then the right code still works.
    assert.equal((await answer(client, { code: right })).location, '/home')
  })

  it('a code is accepted once: the same code in a second login is refused', async () => {
    const email = 'replay@example.test'
    const { secret } = await enrol(email)
    const code = nextCode(secret)
    const first = await passwordStep(email)
    assert.equal((await answer(first, { code })).location, '/home')
    const second = await passwordStep(email)
    const r = await answer(second, { code })
    assert.equal(r.location, '/two-factor-challenge')
    assert.equal((await second.get('/home')).location, '/login')
  })

  it('a password change between the two steps ends the pending login: log in again', async () => {
    const email = 'changed@example.test'
    const { secret, client: owner } = await enrol(email)
    const pending = await passwordStep(email)
    const token = pending.csrf()
    await owner.get('/account')
    const newPassword = `${PASSWORD}-changed`
    const changed = await owner.post('/account/password', { __token: owner.csrf(), current_password: PASSWORD, password: newPassword, password_confirmation: newPassword })
    assert.equal(changed.status, 302)
    assert.equal(changed.location, '/account')
    const r = await pending.post('/two-factor-challenge', { __token: token, code: nextCode(secret) })
    assert.equal(r.status, 302)
    assert.equal(r.location, '/login', 'the second step finished a login made with the old password')
    assert.equal(pending.cookies.has('trowel_auth'), false)
    assert.match((await pending.get('/login')).text, /Your login has expired\. Please log in again\./)
    assert.equal((await pending.get('/home')).location, '/login')
  })

  it('a device that has logged into the account keeps its own budget when others exhaust the account\'s', async () => {
    const email = 'budget-owner@example.test'
    const { secret, client: owner } = await enrol(email)
    // The browser that registered is a known device of the account (`trowel_device`); it logs out.
    assert.ok(owner.cookies.has('trowel_device'))
    await owner.post('/logout', { __token: (await owner.get('/home'), owner.csrf()) })
    // Someone who knows the password spends the account's budget from elsewhere.
    for (let i = 0; i < 6; i++) {
      const stranger = await passwordStep(email)
      await answer(stranger, { code: '000000' })
    }
    const throttled = await passwordStep(email)
    assert.match((await answer(throttled, { code: '000000' }), await throttled.get('/two-factor-challenge')).text, /Too many attempts/)
    // The owner's browser still gets its answers checked.
    const mine = await passwordStep(email, {}, owner)
    const r = await answer(mine, { code: nextCode(secret) })
    assert.equal(r.location, '/home', 'the owner was throttled by a stranger')
  })

  it('a recovery code works once, and of 20 logins presenting it at once exactly one gets in', async () => {
    const { codes } = await enrol('recovery@example.test')
    const client = await passwordStep('recovery@example.test')
    const r = await answer(client, { recovery_code: codes[0]! })
    assert.equal(r.location, '/home')
    assert.equal((await client.get('/vault')).status, 200, 'a recovery code is a second factor')
    const again = await passwordStep('recovery@example.test')
    assert.equal((await answer(again, { recovery_code: codes[0]! })).location, '/two-factor-challenge')

    // 20 browsers, each with its own pending login of another user, all answering with one code.
    const { codes: theirs } = await enrol('race@example.test')
    const clients = await Promise.all(Array.from({ length: 20 }, () => passwordStep('race@example.test')))
    for (const c of clients) await c.get('/two-factor-challenge')
    const results = await Promise.all(clients.map((c) => c.post('/two-factor-challenge', { __token: c.csrf(), recovery_code: theirs[1]! })))
    assert.equal(results.filter((x) => x.location === '/home').length, 1, results.map((x) => `${x.status} ${x.location}`).join(', '))
    assert.ok(results.every((x) => x.status === 302))
  })

  it('5 wrong answers a minute are throttled, per pending login and per user', async () => {
    const email = 'throttle@example.test'
    const { secret } = await enrol(email)
    const client = await passwordStep(email)
    for (let i = 0; i < 5; i++) assert.equal((await answer(client, { code: '000000' })).location, '/two-factor-challenge')
    // The 6th, even the right code, gets the "too many attempts" message.
    const r = await answer(client, { code: nextCode(secret) })
    assert.equal(r.location, '/two-factor-challenge')
    assert.match((await client.get('/two-factor-challenge')).text, /Too many attempts\. Please try again in \d+ seconds\./)
    assert.equal((await client.get('/home')).location, '/login')
    const json = await client.post('/two-factor-challenge', { __token: client.csrf(), code: '000000' }, { accept: 'application/json' })
    assert.equal(json.status, 429)
    assert.equal(json.json().code, 'E_TOO_MANY_REQUESTS')
    assert.match(json.headers.get('retry-after') ?? '', /^\d+$/)
    // A new pending login of the same user does not start a new budget.
    const other = await passwordStep(email)
    const json2 = await other.post('/two-factor-challenge', { __token: (await other.get('/two-factor-challenge'), other.csrf()), code: '000000' }, { accept: 'application/json' })
    assert.equal(json2.status, 429)
  })

  it('without a pending login the challenge sends to /login; so does an odd or missing answer', async () => {
    const client = new Client(server.url)
    assert.equal((await client.get('/two-factor-challenge')).location, '/login')
    await client.get('/login')
    const r = await client.post('/two-factor-challenge', { __token: client.csrf(), code: '123456' })
    assert.equal(r.location, '/login')
    const { secret } = await enrol('empty@example.test')
    const pending = await passwordStep('empty@example.test')
    const empty = await answer(pending, { code: '' })
    assert.equal(empty.location, '/two-factor-challenge')
    assert.match((await pending.get('/two-factor-challenge')).text, /Enter the code from your authenticator app/)
    // Arrays and other type confusion are no answer either (and do not crash).
    await pending.get('/two-factor-challenge')
    const odd = await pending.post('/two-factor-challenge', { __token: pending.csrf(), code: ['1', '2'] })
    assert.equal(odd.status, 302)
    assert.equal((await answer(pending, { code: nextCode(secret) })).location, '/home')
  })

  it('JSON clients of /login get 401 E_MFA_REQUIRED and can answer the challenge in JSON', async () => {
    const email = 'json@example.test'
    const { secret } = await enrol(email)
    const client = new Client(server.url)
    await client.get('/login')
    const r = await client.post('/login', { __token: client.csrf(), email, password: PASSWORD }, { accept: 'application/json' })
    assert.equal(r.status, 401)
    assert.equal(r.json().code, 'E_MFA_REQUIRED')
    assert.equal(r.json().mfa_token, undefined, 'the web login keeps its pending login in the session')
    await client.get('/two-factor-challenge')
    const done = await client.post('/two-factor-challenge', { __token: client.csrf(), code: nextCode(secret) }, { accept: 'application/json' })
    assert.equal(done.status, 200, done.text)
    assert.equal(done.json().data.redirect, '/home')
    assert.equal((await client.get('/home')).status, 200)
  })

  it('"Trust this device for 30 days" skips the step until the devices are forgotten', async () => {
    const email = 'trust@example.test'
    const { secret, id } = await enrol(email)
    const client = await passwordStep(email)
    const r = await answer(client, { code: nextCode(secret), trust: '1' })
    assert.equal(r.location, '/home')
    const cookie = r.setCookies.find((c) => c.startsWith('trowel_2fa_trusted='))
    assert.ok(cookie, 'the trust cookie')
    assert.match(cookie, /HttpOnly/i)
    assert.match(cookie, /Max-Age=2592000/i)
    const rows = await db('user_tokens').where({ user_id: id, purpose: 'two_factor_trust' })
    assert.equal(rows.length, 1)
    assert.match(rows[0].token_hash, /^[0-9a-f]{64}$/)
    assert.ok(!cookie.includes(rows[0].token_hash), 'the cookie holds the token, the row its hash')

    // Log out, log in again from this browser: no second step, and the login counts as two factors.
    await client.submit('/home', '/logout', {})
    let again = await client.submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(again.location, '/home', 'a trusted device skips the challenge')
    assert.equal((await client.get('/vault')).status, 200)

    // The cookie is this user's: another user with TOTP on this browser still gets the challenge.
    await client.submit('/home', '/logout', {})
    const { secret: otherSecret } = await enrol('trust-other@example.test')
    await passwordStep('trust-other@example.test', {}, client)
    assert.equal((await answer(client, { code: nextCode(otherSecret) })).location, '/home')
    await client.submit('/home', '/logout', {})

    // A forged or copied-from-elsewhere cookie value is not trust.
    const stranger = new Client(server.url)
    stranger.cookies.set('trowel_2fa_trusted', client.cookies.get('trowel_2fa_trusted')!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))
    await passwordStep(email, {}, stranger)

    // Forget the devices: the next login asks again.
    again = await client.submit('/login', '/login', { email, password: PASSWORD })
    assert.equal(again.location, '/home')
    const forgot = await client.submit('/account', '/account/two-factor/forget-devices', {})
    assert.equal(forgot.status, 302)
    assert.equal(forgot.location, '/account/two-factor')
    assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'two_factor_trust' })).length, 0)
    await client.submit('/home', '/logout', {})
    await passwordStep(email, {}, client)
  })

  it('logging every other device out forgets the trusted devices too', async () => {
    const email = 'trust-revoke@example.test'
    const { codes, id } = await enrol(email)
    const client = await passwordStep(email)
    assert.equal((await answer(client, { recovery_code: codes[0]!, trust: 'on' })).location, '/home')
    assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'two_factor_trust' })).length, 1)
    const r = await client.submit('/account/devices', '/account/devices/revoke-others', {})
    assert.equal(r.status, 302)
    assert.equal((await db('user_tokens').where({ user_id: id, purpose: 'two_factor_trust' })).length, 0)
    // One other login: the browser that enrolled. The trust mark is not counted as one.
    assert.match((await client.get('/account/devices')).text, /1 other device logged out\./)
  })
})
