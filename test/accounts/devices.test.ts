/**
 * Black-box: the devices page of a generated app. Each web login of the user is listed with its
 * browser in words, IP and dates, "This device" on the one asking; logging another device out
 * ends that browser's next request (and its "remember me" token); someone else's device, an
 * unknown or malformed id is a 404 that ends nothing; of 20 clicks at once exactly one ends the
 * device; logging this device out is logging out; "Log out all other devices" needs a recent
 * password confirmation and keeps only this device. Every event lands in auth_events.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff, setWebGuard } from '../helpers/auth-config.js'
import { PASSWORD, appDb } from '../helpers/security-kit.js'

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0'
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36'
const CONFIRM_SECONDS = 6
/** The login page (the `auth` middleware may add `?next=`). */
const LOGIN = /^\/login(\?|$)/

describe('devices page', () => {
  let app: TestApp
  let server: Server
  let db: Knex

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    applyAuthSteps(app)
    // Every request comes from 127.0.0.1: the per-address budgets would trip. (`reset` is not used.)
    budgetsOff(app, ['reset'])
    setWebGuard(app, { password_timeout: CONFIRM_SECONDS / 60 })
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
  })

  async function register(email: string, ua = FIREFOX): Promise<Client> {
    const client = new Client(server.url)
    client.extraHeaders['user-agent'] = ua
    const r = await client.submit('/register', '/register', { name: 'Device Owner', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.notEqual(r.location, '/register', 'registration failed')
    return client
  }

  async function login(email: string, ua: string, extra: Record<string, string> = {}): Promise<Client> {
    const client = new Client(server.url)
    client.extraHeaders['user-agent'] = ua
    const r = await client.submit('/login', '/login', { email, password: PASSWORD, ...extra })
    assert.equal(r.location, '/home', 'login failed')
    return client
  }

  async function userId(email: string): Promise<number> {
    return Number((await db('users').where('email', email).first('id')).id)
  }

  /** The login_tokens id of the user's login from `ua`. */
  async function loginId(user: number, ua: string): Promise<number> {
    const row = await db('login_tokens').where({ user_id: user, user_agent: ua }).first('id')
    assert.ok(row, `no login from ${ua}`)
    return Number(row.id)
  }

  async function audit(type: string, user: number, count = 1): Promise<{ details: string }[]> {
    let found: { details: string }[] = []
    for (let i = 0; i < 100; i++) {
      found = await db('auth_events').where({ type, user_id: user }).orderBy('id')
      if (found.length >= count) break
      await new Promise((r) => setTimeout(r, 50))
    }
    return found
  }

  it('lists each login with its browser, IP and dates, "This device" on the one asking', async () => {
    const email = 'list@example.test'
    const desktop = await register(email, FIREFOX)
    await login(email, ANDROID)
    const id = await userId(email)
    const page = await desktop.get('/account/devices')
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('cache-control'), 'no-store')
    assert.match(page.text, /Firefox 132 on Windows <strong>\(This device\)<\/strong>/)
    assert.match(page.text, /Chrome 131 on Android<\/h2>/)
    assert.equal(page.text.match(/This device/g)?.length, 1)
    assert.match(page.text, /127\.0\.0\.1|::1/)
    assert.match(page.text, /<time datetime="\d{4}-\d\d-\d\dT/)
    const phone = await loginId(id, ANDROID)
    const own = await loginId(id, FIREFOX)
    assert.match(page.text, new RegExp(`action="/account/devices/${phone}/revoke"`))
    assert.doesNotMatch(page.text, new RegExp(`action="/account/devices/${own}/revoke"`), 'this device has a "Log out" button')
    assert.match(page.text, /action="\/account\/devices\/revoke-others"/)
    // Nothing that logs in is on the page.
    for (const row of await db('login_tokens').where('user_id', id)) assert.ok(!page.text.includes(row.token_hash))

    const json = await desktop.get('/account/devices', { accept: 'application/json' })
    const data = json.json().data as { id: string; client: string; current: boolean }[]
    assert.equal(data.length, 2)
    assert.deepEqual(data.filter((d) => d.current).map((d) => d.id), [String(own)])
  })

  it('logging another device out ends its next request and its "remember me" token', async () => {
    const email = 'revoke@example.test'
    const desktop = await register(email, FIREFOX)
    const phone = await login(email, ANDROID, { remember: 'on' })
    const id = await userId(email)
    const device = await loginId(id, ANDROID)
    assert.equal((await db('remember_tokens').where('user_id', id)).length, 1, 'remember me left no row')
    assert.equal((await phone.get('/account')).status, 200)

    const r = await desktop.submit('/account/devices', `/account/devices/${device}/revoke`, {})
    assert.equal(r.status, 302)
    assert.equal(r.location, '/account/devices')
    assert.match((await desktop.get('/account/devices')).text, /Device logged out\./)
    // The phone is logged out, and its remember-me cookie does not log it back in.
    const next = await phone.get('/account')
    assert.equal(next.status, 302)
    assert.match(next.location ?? '', LOGIN)
    assert.match((await phone.get('/home')).location ?? '', LOGIN)
    assert.equal(await db('login_tokens').where('id', device).first(), undefined)
    assert.equal((await db('remember_tokens').where('user_id', id)).length, 0)
    assert.equal((await desktop.get('/account')).status, 200, 'this device was logged out too')
    const events = await audit('auth:device_revoked', id)
    assert.equal(events.length, 1)
    assert.deepEqual(JSON.parse(events[0]!.details), { guard: 'web', device: String(device), count: 1 })
  })

  it('someone else\'s device, an unknown id or a malformed one is a 404 and ends nothing', async () => {
    const mine = await register('mine@example.test', FIREFOX)
    await register('theirs@example.test', ANDROID)
    const theirId = await userId('theirs@example.test')
    const theirs = await loginId(theirId, ANDROID)
    await mine.get('/account/devices')
    const token = mine.csrf()
    for (const id of [String(theirs), '999999999', 'abc', '0', '-1', '1e3', `${theirs}.0`]) {
      const r = await mine.post(`/account/devices/${encodeURIComponent(id)}/revoke`, { __token: token })
      assert.equal(r.status, 404, `id ${id}: ${r.status}`)
    }
    const json = await mine.request('POST', `/account/devices/${theirs}/revoke`, { form: { __token: token }, headers: { accept: 'application/json' } })
    assert.equal(json.status, 404)
    assert.equal(json.json().code, 'E_NOT_FOUND')
    assert.ok(await db('login_tokens').where('id', theirs).first(), 'another user\'s login was ended')
    assert.equal((await mine.get('/account')).status, 200)
  })

  it('20 clicks at once on one device: exactly one ends it', async () => {
    const email = 'race@example.test'
    const desktop = await register(email, FIREFOX)
    await login(email, ANDROID)
    const id = await userId(email)
    const device = await loginId(id, ANDROID)
    await desktop.get('/account/devices')
    const token = desktop.csrf()
    const answers = await Promise.all(Array.from({ length: 20 }, () => desktop.post(`/account/devices/${device}/revoke`, { __token: token })))
    const statuses = answers.map((a) => a.status)
    assert.equal(statuses.filter((s) => s === 302).length, 1, statuses.join(','))
    assert.equal(statuses.filter((s) => s === 404).length, 19, statuses.join(','))
    assert.equal((await audit('auth:device_revoked', id)).length, 1)
    await new Promise((r) => setTimeout(r, 200))
    assert.equal((await db('auth_events').where({ type: 'auth:device_revoked', user_id: id })).length, 1)
  })

  it('logging this device out from the list is logging out', async () => {
    const email = 'self@example.test'
    const desktop = await register(email, FIREFOX)
    const id = await userId(email)
    const own = await loginId(id, FIREFOX)
    const r = await desktop.submit('/account/devices', `/account/devices/${own}/revoke`, {})
    assert.equal(r.status, 302)
    assert.match(r.location ?? '', LOGIN)
    assert.match((await desktop.get('/account')).location ?? '', LOGIN)
    assert.equal(await db('login_tokens').where('id', own).first(), undefined)
    assert.equal((await audit('auth:device_revoked', id)).length, 1)
    assert.equal((await audit('auth:logout', id)).length, 1)
  })

  it('"Log out all other devices" needs a recent password confirmation, then keeps only this one', async () => {
    const email = 'others@example.test'
    const desktop = await register(email, FIREFOX)
    const phone = await login(email, ANDROID, { remember: 'on' })
    const tablet = await login(email, 'Tablet-Agent/1.0')
    const id = await userId(email)

    await new Promise((r) => setTimeout(r, CONFIRM_SECONDS * 1000 + 500))
    const stale = await desktop.submit('/account/devices', '/account/devices/revoke-others', {})
    assert.equal(stale.status, 302)
    assert.equal(stale.location, '/confirm-password')
    assert.equal((await db('login_tokens').where('user_id', id)).length, 3, 'devices were logged out without a confirmation')

    const confirmed = await desktop.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    assert.equal(confirmed.status, 302)
    const r = await desktop.submit('/account/devices', '/account/devices/revoke-others', {})
    assert.equal(r.status, 302)
    assert.equal(r.location, '/account/devices')
    const page = await desktop.get('/account/devices')
    assert.match(page.text, /2 other devices logged out\./)
    assert.equal(page.text.match(/<li aria-current="true">/g)?.length, 1)
    assert.doesNotMatch(page.text, /Chrome 131 on Android|Tablet-Agent/)
    for (const other of [phone, tablet]) assert.match((await other.get('/account')).location ?? '', LOGIN)
    assert.equal((await desktop.get('/account')).status, 200)
    assert.equal((await db('login_tokens').where('user_id', id)).length, 1)
    assert.equal((await db('remember_tokens').where('user_id', id)).length, 0)
    const events = await audit('auth:device_revoked', id)
    assert.equal(events.length, 1)
    assert.deepEqual(JSON.parse(events[0]!.details), { guard: 'web', device: 'others', count: 2 })
  })
})
