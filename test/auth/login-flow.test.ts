/**
 * Black-box: every way in ends in the one login flow. Each completed login writes exactly one
 * `auth:login_succeeded` audit row naming its method (a password and its second step, a
 * remember-me restore, the app's own `attemptById`), sets the `trowel_device` cookie, and
 * records its amr; registration writes `auth:registered` and no login row; a remember-me cookie
 * restores the amr of the login it was made for (a login that passed its second factor passes
 * `mfa` again after a browser restart); `attemptById` is never challenged, and `mfa` asks it to
 * step up.
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('one login flow for every way in', () => {
  let app: TestApp
  let server: Server
  let db: Knex

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    applyAuthSteps(app)
    budgetsOff(app)
    app.edit('routes/web.ts', (t) =>
      t.replace(
        'export const ROUTES = [',
        'export const ROUTES = [\n' +
          "  Route.get('/vault', (ctx) => `vault of ${ctx.auth.user().name}`).middleware(['auth', 'mfa']),\n" +
          "  Route.post('/as/@id', async (ctx) => ((await ctx.auth.attemptById(Number(ctx.params.id))) ? ctx.response.redirect('/home') : 'nobody')).middleware(['guest']),",
      ),
    )
    if (!app.read('routes/web.ts').includes('import { Route }')) app.edit('routes/web.ts', (t) => `import { Route } from 'trowel'\n${t}`)
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
  })

  async function userId(email: string): Promise<number> {
    return Number((await db('users').where({ email }).first('id')).id)
  }

  /** The audit rows of `type` for the user, oldest first, once `count` are there (audit writes are not awaited). */
  async function rows(type: string, id: number, count: number): Promise<Record<string, any>[]> {
    for (let i = 0; i < 200; i++) {
      const found = await db('auth_events').where({ type, user_id: id }).orderBy('id')
      if (found.length >= count) return found.map((r) => ({ ...r, details: typeof r.details === 'string' ? JSON.parse(r.details) : r.details }))
      await sleep(50)
    }
    return db('auth_events').where({ type, user_id: id })
  }

  async function register(email: string): Promise<{ client: Client; id: number }> {
    const client = new Client(server.url)
    const r = await client.submit('/register', '/register', { name: 'Flow', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home', r.text)
    const id = await userId(email)
    await db('users').where({ id }).update({ email_verified_at: new Date() })
    return { client, id }
  }

  async function enrolTotp(client: Client): Promise<OTPAuth.TOTP> {
    assert.equal((await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })).status, 302)
    const page = await client.get('/account/two-factor')
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
    assert.ok(secret, page.text)
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
    const r = await client.post('/account/two-factor', { __token: client.csrf(), code: totp.generate() }, { accept: 'application/json' })
    assert.equal(r.status, 200, r.text)
    return totp
  }

  it('registration logs in through the flow without a login event; a password login writes one row, method password, and sets the device cookie', async () => {
    const { client, id } = await register('pwd@example.test')
    assert.ok(client.cookies.has('trowel_device'), 'registration marks the browser as a known device')
    assert.equal((await rows('auth:registered', id, 1)).length, 1)
    const browser = new Client(server.url)
    const r = await browser.submit('/login', '/login', { email: 'pwd@example.test', password: PASSWORD })
    assert.equal(r.location, '/home')
    assert.ok(browser.cookies.has('trowel_device'))
    const logins = await rows('auth:login_succeeded', id, 1)
    await sleep(200)
    assert.deepEqual((await rows('auth:login_succeeded', id, 1)).map((row) => row.details.method), ['password'], 'registration wrote no login row')
    assert.equal(logins[0]!.details.knownDevice, false)
  })

  it('a TOTP user: the password holds the login back; the second step completes it once (method password); remember-me restores that amr after a restart', async () => {
    const { client, id } = await register('totp@example.test')
    const totp = await enrolTotp(client)
    const before = (await db('auth_events').where({ type: 'auth:login_succeeded', user_id: id })).length
    const browser = new Client(server.url)
    const step1 = await browser.submit('/login', '/login', { email: 'totp@example.test', password: PASSWORD, remember: '1' })
    assert.equal(step1.location, '/two-factor-challenge')
    assert.equal(browser.cookies.has('trowel_remember'), false, 'nothing remembered before the second step')
    await sleep(200)
    assert.equal((await db('auth_events').where({ type: 'auth:login_succeeded', user_id: id })).length, before, 'no login row for the first step')
    await browser.get('/two-factor-challenge')
    const step2 = await browser.post('/two-factor-challenge', { __token: browser.csrf(), code: totp.generate({ timestamp: Date.now() + 30_000 }) })
    assert.equal(step2.location, '/home')
    assert.equal((await browser.get('/vault')).status, 200)
    const afterStep = await rows('auth:login_succeeded', id, before + 1)
    assert.equal(afterStep.length, before + 1)
    assert.equal(afterStep.at(-1)!.details.method, 'password')

    // A browser restart: only the remember cookie is left. The login it restores had passed its
    // second factor, and `mfa` lets it through without asking again.
    const restarted = new Client(server.url)
    restarted.cookies.set('trowel_remember', browser.cookies.get('trowel_remember')!)
    restarted.cookies.set('trowel_device', browser.cookies.get('trowel_device')!)
    const vault = await restarted.get('/vault')
    assert.equal(vault.status, 200, `${vault.status} ${vault.location}`)
    const restored = await rows('auth:login_succeeded', id, before + 2)
    assert.equal(restored.at(-1)!.details.method, 'remember')
    assert.equal(restored.length, before + 2, 'one row for the restore')
  })

  it('attemptById: method id, never challenged (even with TOTP), and `mfa` asks it to step up', async () => {
    const { client, id } = await register('byid@example.test')
    await enrolTotp(client)
    const before = (await db('auth_events').where({ type: 'auth:login_succeeded', user_id: id })).length
    const browser = new Client(server.url)
    await browser.get('/login')
    const r = await browser.post(`/as/${id}`, { __token: browser.csrf() })
    assert.equal(r.location, '/home', r.text)
    assert.ok(browser.cookies.has('trowel_device'))
    assert.equal((await browser.get('/home')).status, 200)
    assert.equal((await browser.get('/vault')).location, '/two-factor-challenge', 'amr [] steps up for mfa')
    const found = await rows('auth:login_succeeded', id, before + 1)
    assert.equal(found.length, before + 1)
    assert.equal(found.at(-1)!.details.method, 'id')
    assert.equal(found.at(-1)!.details.knownDevice, undefined, 'no new-device notice for the app\'s own login')
  })
})
