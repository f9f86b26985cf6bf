/**
 * Black-box: the budgets of the mail-sending and account-creating routes, and their timing
 * (SPEC section 9 items 6 and 7).
 * - POST /register: 10 a minute per client address; the 11th gets the throttled answer (302 back
 *   with the message and the input, or 429 in JSON) and creates nothing.
 * - POST /password_reset: 10 a minute per client address; at most one e-mail per address a
 *   minute, with the same answer either way, also under 30 concurrent requests.
 * - The reset answer does not wait for the look-up: with the app's `User.findForAuth` held shut,
 *   the answer still arrives, identical for a known and an unknown address; the token and the
 *   e-mail follow once it opens.
 * - A taken address costs the same password hashing as a free one, counted by the app's own
 *   hasher (a `Hasher` subclass bound in a provider), not timed.
 * - A dead reset link says so on GET; a logged-in user is sent from the guest forms to /home.
 * The app trusts one proxy (TRUST_PROXY=1), so each test speaks from its own X-Forwarded-For
 * address and its own budgets.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Knex } from 'knex'
import { newApp, installAuth, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { PASSWORD, appDb } from '../helpers/security-kit.js'

const COUNTING_HASHER = `import { ServiceProvider } from 'trowel'
import { Hasher } from 'trowel/auth'

/** The app's hasher, counting hash() calls for the test route. */
export class CountingHasher extends Hasher {
  hashes = 0
  override async hash(password: string): Promise<string> {
    this.hashes++
    return super.hash(password)
  }
}

export class CountingHasherProvider extends ServiceProvider {
  override register() {
    this.application.singleton('hasher', () => new CountingHasher())
  }
}
`

/** A gate the test can close: while shut, every User.findForAuth waits. */
const GATE = `let gate: { promise: Promise<void>; open: () => void } | null = null

export function hold(): void {
  if (gate) return
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  gate = { promise, open }
}

export function release(): void {
  gate?.open()
  gate = null
}

export async function pass(): Promise<void> {
  if (gate) await gate.promise
}
`

const TEST_ROUTES = `import { Route } from 'trowel'
import { hold, release } from '../app/gate.js'

export const TEST_ROUTES = [
  Route.get('/__test/hashes', ({ app }) => ({ hashes: (app.make('hasher') as unknown as { hashes: number }).hashes })),
  Route.get('/__test/hold', () => (hold(), { held: true })),
  Route.get('/__test/release', () => (release(), { held: false })),
]
`

const NEW_PASSWORD = 'a brand new passphrase'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('abuse budgets of /register and /password_reset, and their timing', () => {
  let app: TestApp
  let server: Server
  let db: Knex
  let nextIp = 0

  /** A client speaking from its own address (X-Forwarded-For behind TRUST_PROXY=1). */
  function client(ip = `10.${Math.floor(++nextIp / 250)}.${nextIp % 250}.7`): Client {
    const c = new Client(server.url)
    c.extraHeaders = { 'x-forwarded-for': ip }
    return c
  }

  async function hashes(): Promise<number> {
    return (await new Client(server.url).get('/__test/hashes')).json().hashes
  }

  function register(c: Client, email: string, password = PASSWORD): Promise<HttpResult> {
    return c.submit('/register', '/register', { name: 'Abuse Test', email, password, password_confirmation: password })
  }

  function postJson(c: Client, path: string, json: unknown): Promise<HttpResult> {
    return c.request('POST', path, { json, headers: { accept: 'application/json', 'x-csrf-token': c.csrf() } })
  }

  /** The flashed message the next page shows (error or success), or null. */
  async function flashed(c: Client, page: string): Promise<string | null> {
    return /role="(?:alert|status)">([^<]+)</.exec((await c.get(page)).text)?.[1] ?? null
  }

  /** The reset e-mails in storage/logs/mail.log addressed to `email`: their tokens, in order. */
  function mailsTo(email: string): string[] {
    const log = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log') : ''
    return log
      .split(/^----- \S+ -----$/m)
      .filter((entry) => new RegExp(`^To: .*${email.replace(/[.+]/g, '\\$&')}`, 'mi').test(entry))
      // Reset mails only (registration also sends a verification link, a login may send a notice).
      .filter((entry) => /\/change_password\//.test(entry))
      .map((entry) => /\/change_password\/([A-Za-z0-9_-]{43})/.exec(entry)?.[1] ?? '?')
  }

  async function waitForMails(email: string, count: number, tries = 100): Promise<string[]> {
    for (let i = 0; i < tries; i++) {
      const found = mailsTo(email)
      if (found.length >= count) return found
      await sleep(50)
    }
    return mailsTo(email)
  }

  async function resetRow(email: string): Promise<Record<string, unknown> | undefined> {
    return db('password_resets').whereRaw('lower(email) = ?', [email.toLowerCase()]).first()
  }

  /** A registered address (registered from an address of its own). */
  async function user(email: string): Promise<void> {
    assert.equal((await register(client(), email)).location, '/home', `registration of ${email}`)
  }

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log', TRUST_PROXY: '1' } })
    installAuth(app)
    mkdirSync(join(app.dir, 'app/providers'), { recursive: true })
    app.write('app/providers/CountingHasherProvider.ts', COUNTING_HASHER)
    app.edit('config/providers.ts', (t) =>
      `import { CountingHasherProvider } from '../app/providers/CountingHasherProvider.js'\n` + t.replace(/AuthProvider,/, 'AuthProvider,\n  CountingHasherProvider,'),
    )
    app.write('app/gate.ts', GATE)
    app.edit('app/models/User.ts', (t) =>
      `import { pass } from '../gate.js'\n` +
      t.replace(
        /\n\}\s*$/,
        `\n  static override async findForAuth(value: unknown): Promise<any | null> {\n    await pass()\n    if (value === 'explode@example.test') throw new Error('the look-up exploded')\n    return super.findForAuth(value)\n  }\n}\n`,
      ),
    )
    app.write('routes/test.ts', TEST_ROUTES)
    app.edit('routes/web.ts', (t) => `import { TEST_ROUTES } from './test.js'\n` + t.replace('export const ROUTES = [', 'export const ROUTES = [\n  ...TEST_ROUTES,'))
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await new Client(server.url).get('/__test/release').catch(() => undefined)
    await db?.destroy()
    await app.cleanup()
  })

  it('POST /register: 10 a minute per client address; the 11th is refused and stores nothing', async () => {
    // A fresh browser each time (a logged-in one is sent from /register to /home), one address.
    const ip = '192.0.2.11'
    for (let i = 1; i <= 10; i++) assert.equal((await register(client(ip), `reg${i}@example.test`)).location, '/home', `registration ${i}`)
    const web = client(ip)
    const refused = await register(web, 'reg11@example.test')
    assert.equal(refused.status, 302)
    assert.equal(refused.location, '/register')
    const page = (await web.get('/register')).text
    assert.match(page, /role="alert">Too many attempts\. Please try again in \d+ seconds\.</)
    assert.match(page, /name="email"[^>]*value="reg11@example\.test"/, 'the input is kept')
    assert.match(page, /name="name"[^>]*value="Abuse Test"/)
    assert.ok(!page.includes(PASSWORD), 'a password was kept')
    assert.equal((await db('users').where('email', 'reg11@example.test')).length, 0, 'the 11th registration created a user')
    assert.equal((await db('users').where('email', 'like', 'reg%@example.test')).length, 10)

    // JSON, from another address: every POST counts (invalid ones too), then 429 with Retry-After.
    const json = client()
    await json.get('/register')
    for (let i = 1; i <= 10; i++) {
      const r = await postJson(json, '/register', { name: 'J', email: `json${i}@example.test`, password: 'short', password_confirmation: 'short' })
      assert.equal(r.status, 422, `attempt ${i}: ${r.text}`)
    }
    const r = await postJson(json, '/register', { name: 'J', email: 'json11@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.status, 429, r.text)
    assert.equal(r.json().code, 'E_TOO_MANY_REQUESTS')
    assert.ok(Number(r.headers.get('retry-after')) >= 1)
    assert.equal((await db('users').where('email', 'json11@example.test')).length, 0)
    // Another client address still registers (control).
    assert.equal((await register(client(), 'reg-elsewhere@example.test')).location, '/home')
  })

  it('POST /password_reset: 10 a minute per client address; the 11th is refused and sends nothing', async () => {
    await user('budget-reset@example.test')
    const web = client()
    for (let i = 1; i <= 10; i++) {
      const r = await web.submit('/password_reset', '/password_reset', { email: `nobody${i}@example.test` })
      assert.equal(r.location, '/password_reset', `request ${i}`)
    }
    const refused = await web.submit('/password_reset', '/password_reset', { email: 'budget-reset@example.test' })
    assert.equal(refused.status, 302)
    assert.equal(refused.location, '/password_reset')
    const page = (await web.get('/password_reset')).text
    assert.match(page, /role="alert">Too many attempts\. Please try again in \d+ seconds\.</)
    assert.match(page, /name="email"[^>]*value="budget-reset@example\.test"/)
    await sleep(500)
    assert.deepEqual(mailsTo('budget-reset@example.test'), [], 'the refused request sent a mail')
    assert.equal(await resetRow('budget-reset@example.test'), undefined)

    const json = client()
    await json.get('/password_reset')
    for (let i = 1; i <= 10; i++) assert.equal((await postJson(json, '/password_reset', { email: `nobody-j${i}@example.test` })).status, 200)
    const r = await postJson(json, '/password_reset', { email: 'budget-reset@example.test' })
    assert.equal(r.status, 429, r.text)
    assert.equal(r.json().code, 'E_TOO_MANY_REQUESTS')
    assert.ok(Number(r.headers.get('retry-after')) >= 1)
    // From another address the same request goes through (control).
    await client().submit('/password_reset', '/password_reset', { email: 'budget-reset@example.test' })
    assert.equal((await waitForMails('budget-reset@example.test', 1)).length, 1)
  })

  it('one e-mail per address a minute: a second request answers the same, sends nothing and keeps the token', async () => {
    await user('once@example.test')
    const answers = []
    for (const email of ['once@example.test', '  ONCE@Example.test ']) {
      const c = client()
      const r = await c.submit('/password_reset', '/password_reset', { email })
      answers.push({ status: r.status, location: r.location, message: await flashed(c, '/password_reset') })
      if (answers.length === 1) assert.equal((await waitForMails('once@example.test', 1)).length, 1, 'the first request sent its mail')
    }
    assert.deepEqual(answers[0], answers[1])
    assert.equal(answers[0]!.message, 'If that e-mail address is registered, a password reset link is on its way.')
    const row = await resetRow('once@example.test')
    assert.ok(row)
    // The JSON form answers the same too.
    const jsonAnswers = []
    for (let i = 0; i < 2; i++) {
      const c = client()
      await c.get('/password_reset')
      const r = await postJson(c, '/password_reset', { email: 'once@example.test' })
      jsonAnswers.push({ status: r.status, body: r.text })
    }
    assert.deepEqual(jsonAnswers[0], jsonAnswers[1])
    assert.equal(jsonAnswers[0]!.status, 200)
    await sleep(800)
    const mails = mailsTo('once@example.test')
    assert.equal(mails.length, 1, `${mails.length} e-mails to one address within a minute`)
    assert.deepEqual(await resetRow('once@example.test'), row, 'a held-back request changed the token')
    // The one link that went out still works.
    const c = client()
    const done = await c.submit(`/change_password/${mails[0]}`, `/change_password/${mails[0]}`, { password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(done.location, '/login')
  })

  it('30 concurrent reset requests for one address (from 30 addresses): one e-mail, 30 identical answers', async () => {
    await user('flood@example.test')
    const clients = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const c = client()
        await c.get('/password_reset')
        return c
      }),
    )
    const answers = await Promise.all(clients.map((c) => c.post('/password_reset', { __token: c.csrf(), email: 'flood@example.test' })))
    for (const r of answers) assert.deepEqual({ status: r.status, location: r.location }, { status: 302, location: '/password_reset' })
    assert.equal((await waitForMails('flood@example.test', 1)).length, 1)
    await sleep(1000)
    assert.equal(mailsTo('flood@example.test').length, 1, `${mailsTo('flood@example.test').length} e-mails from 30 concurrent requests`)
    assert.equal((await db('password_resets').whereRaw('lower(email) = ?', ['flood@example.test'])).length, 1)
  })

  it('the reset answer does not wait for the look-up: known and unknown answer alike with User.findForAuth held shut', async () => {
    await user('early@example.test')
    const control = new Client(server.url)
    await control.get('/__test/hold')
    try {
      const answer = async (email: string, json: boolean) => {
        const c = client()
        await c.get('/password_reset')
        const sent = json ? postJson(c, '/password_reset', { email }) : c.post('/password_reset', { __token: c.csrf(), email })
        const r = await Promise.race([sent, sleep(8000).then(() => null)])
        assert.ok(r, `the answer for ${email} waited for the account look-up`)
        return json ? { status: r.status, body: r.text } : { status: r.status, location: r.location, message: await flashed(c, '/password_reset') }
      }
      assert.deepEqual(await answer('early@example.test', false), await answer('nobody-early@example.test', false))
      assert.deepEqual(await answer('early@example.test', true), await answer('nobody-early2@example.test', true))
      await sleep(300)
      assert.equal(await resetRow('early@example.test'), undefined, 'the token was written before the look-up could run')
      assert.deepEqual(mailsTo('early@example.test'), [])
    } finally {
      await control.get('/__test/release')
    }
    // Once the look-up can run, the token and the one e-mail follow.
    assert.equal((await waitForMails('early@example.test', 1)).length, 1, 'no mail after the gate opened')
    assert.ok(await resetRow('early@example.test'))
    await sleep(300)
    assert.equal(mailsTo('early@example.test').length, 1)
    assert.equal(mailsTo('nobody-early').length, 0)
  })

  it('a failure in the work after the reset answer is logged, changes no answer and never crashes the server', async () => {
    const answers = []
    for (const email of ['explode@example.test', 'nobody-explode@example.test']) {
      const c = client()
      const r = await c.submit('/password_reset', '/password_reset', { email })
      answers.push({ status: r.status, location: r.location, message: await flashed(c, '/password_reset') })
    }
    assert.deepEqual(answers[0], answers[1])
    let line: string | undefined
    for (let i = 0; i < 100 && !line; i++) {
      line = server.output().split('\n').find((l) => / auth\.reset_request_failed /.test(l))
      if (!line) await sleep(50)
    }
    assert.ok(line, `the background failure was not logged:\n${server.output().slice(-2000)}`)
    assert.match(line, /the look-up exploded/)
    await sleep(200)
    assert.equal((await new Client(server.url).get('/login')).status, 200, 'the server died (an unhandled rejection?)')
  })

  it('POST /register with a taken address does the same password hashing as with a free one', async () => {
    await user('taken@example.test')
    const cost = async (email: string, password = PASSWORD) => {
      const before = await hashes()
      const r = await register(client(), email, password)
      return { location: r.location, hashes: (await hashes()) - before }
    }
    const free = await cost('free@example.test')
    assert.deepEqual(free, { location: '/home', hashes: 1 })
    const taken = await cost('  TAKEN@example.test ')
    assert.equal(taken.location, '/register', 'section 5: a taken address goes back with the field error')
    assert.equal(taken.hashes, free.hashes, `a taken address cost ${taken.hashes} hashes, a free one ${free.hashes}`)
    const c = client()
    await register(c, 'taken@example.test')
    assert.match((await c.get('/register')).text, /The email has already been taken\./)
    // Invalid otherwise: neither is hashed (control).
    assert.equal((await cost('free2@example.test', 'short')).hashes, 0)
    assert.equal((await cost('taken@example.test', 'short')).hashes, 0)
    assert.equal((await db('users').whereRaw('lower(email) = ?', ['taken@example.test'])).length, 1)
  })

  it('GET /change_password with a dead link says so before anyone types a password', async () => {
    await user('dead@example.test')
    const c = client()
    const page = await c.get(`/change_password/${'A'.repeat(43)}`)
    assert.equal(page.status, 200)
    assert.match(page.text, /invalid or has expired/)
    assert.doesNotMatch(page.text, /name="password"/, 'the new-password form is shown for a dead link')
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer')
    await client().submit('/password_reset', '/password_reset', { email: 'dead@example.test' })
    const [token] = await waitForMails('dead@example.test', 1)
    assert.ok(token)
    const live = await c.get(`/change_password/${token}`)
    assert.match(live.text, /name="password"/, 'a live link shows the form (control)')
    assert.doesNotMatch(live.text, /invalid or has expired/)
    assert.match((await c.get(`/change_password/${token}`)).text, /name="password"/, 'showing the form consumed the token')
    const done = await c.post(`/change_password/${token}`, { __token: c.csrf(), password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(done.location, '/login')
    const used = await c.get(`/change_password/${token}`)
    assert.match(used.text, /invalid or has expired/)
    assert.doesNotMatch(used.text, /name="password"/)
    assert.match(used.text, /action="\/password_reset"/, 'the page offers a new link')
  })

  it('a logged-in user asking for /login, /register or /password_reset goes to /home', async () => {
    const c = client()
    assert.equal((await register(c, 'in@example.test')).location, '/home')
    for (const path of ['/login', '/register', '/password_reset']) {
      const r = await c.get(path)
      assert.equal(r.status, 302, path)
      assert.equal(r.location, '/home', path)
      assert.equal((await client().get(path)).status, 200, `${path} for a visitor (control)`)
    }
  })
})
