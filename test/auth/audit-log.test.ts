/**
 * Black-box: the audit log. Each auth action writes exactly one `auth_events` row of its type,
 * with the user, IP and user agent; no row holds a password, token, cookie or reset link;
 * `craft auth:events` filters by user, type and time; a listener that throws changes no response;
 * `craft auth:prune` removes old audit rows and nothing else.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { PASSWORD, appDb } from '../helpers/security-kit.js'

const THROWING_PROVIDER = `import { ServiceProvider } from 'trowel'

/** A listener that always throws: it must never change an answer. */
export class ThrowingListenerProvider extends ServiceProvider {
  override boot() {
    this.application.events.on('auth:login_succeeded', () => { throw new Error('listener boom') })
    this.application.events.on('auth:login_failed', async () => { throw new Error('async listener boom') })
  }
}
`

interface Row {
  id: number
  user_id: number | null
  type: string
  ip: string | null
  user_agent: string | null
  details: string
  created_at: unknown
}

describe('audit log (auth_events)', () => {
  let app: TestApp
  let server: Server
  let db: Knex
  const secrets = new Set<string>([PASSWORD, 'wrong password one'])
  let aliceId: number

  async function rows(): Promise<Row[]> {
    return (await db('auth_events').select('*').orderBy('id')) as Row[]
  }

  /** Rows of `type` once `count` of them exist (audit rows are written after the response). */
  async function waitFor(type: string, count: number): Promise<Row[]> {
    for (let i = 0; i < 100; i++) {
      const found = (await rows()).filter((r) => r.type === type)
      if (found.length >= count) return found
      await new Promise((r) => setTimeout(r, 50))
    }
    return (await rows()).filter((r) => r.type === type)
  }

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    applyAuthSteps(app)
    applyApiSteps(app)
    mkdirSync(join(app.dir, 'app/providers'), { recursive: true })
    app.write('app/providers/ThrowingListenerProvider.ts', THROWING_PROVIDER)
    app.edit('config/providers.ts', (t) =>
      `import { ThrowingListenerProvider } from '../app/providers/ThrowingListenerProvider.js'\n` +
      t.replace(/PROVIDERS = \[/, 'PROVIDERS = [\n  ThrowingListenerProvider,'),
    )
    assert.ok(app.exists('databases/migrations') && app.craft('migrate:status').stdout.includes('create_auth_events_table'), 'craft auth adds the migration')
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app.cleanup()
  })

  it('registration, a failed and a good login, logout, a reset request and an API token each write one row', async () => {
    const browser = new Client(server.url)
    const reg = await browser.submit('/register', '/register', { name: 'Alice', email: 'alice@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(reg.location, '/home')
    await browser.submit('/home', '/logout', {})
    const failed = await new Client(server.url).submit('/login', '/login', { email: 'alice@example.test', password: 'wrong password one' })
    assert.equal(failed.location, '/login', 'a throwing async listener changed the answer of a failed login')
    const good = await new Client(server.url).submit('/login', '/login', { email: 'alice@example.test', password: PASSWORD })
    assert.equal(good.location, '/home', 'a throwing listener changed the answer of a good login')
    await new Client(server.url).submit('/password_reset', '/password_reset', { email: 'alice@example.test' })
    const token = await new Client(server.url).postJson('/api/auth', { username: 'alice@example.test', password: PASSWORD }, { 'user-agent': 'audit-test/1.0' })
    assert.equal(token.status, 200)
    secrets.add(token.json().data)
    for (const c of [browser]) for (const v of c.cookies.values()) secrets.add(v)

    const registered = await waitFor('auth:registered', 1)
    assert.equal(registered.length, 1)
    aliceId = registered[0]!.user_id!
    assert.ok(aliceId > 0)
    for (const [type, count] of [['auth:logout', 1], ['auth:login_failed', 1], ['auth:password_reset_requested', 1], ['auth:token_issued', 1]] as const) {
      const found = await waitFor(type, count)
      assert.equal(found.length, count, `${type}: ${found.length} rows`)
      assert.equal(found[0]!.user_id, aliceId, `${type} names the user`)
      assert.match(String(found[0]!.ip), /127\.0\.0\.1/)
    }
    // A web login and the API login: two login_succeeded rows, one per guard.
    const logins = await waitFor('auth:login_succeeded', 2)
    assert.deepEqual(logins.map((r) => JSON.parse(r.details).guard).sort(), ['jwt', 'web'])
    const issued = (await waitFor('auth:token_issued', 1))[0]!
    assert.equal(issued.user_agent, 'audit-test/1.0')
  })

  it('a reauth, a finished reset and a throttled login each write one row of their type', async () => {
    const first = await new Client(server.url).postJson('/api/auth', { username: 'alice@example.test', password: PASSWORD })
    const reissued = await new Client(server.url).postJson('/api/reauth', { token: first.json().data })
    assert.equal(reissued.status, 200)
    secrets.add(first.json().data)
    secrets.add(reissued.json().data)
    const rows = await waitFor('auth:token_reissued', 1)
    assert.equal(rows.length, 1)
    assert.equal(rows[0]!.user_id, aliceId)

    const mail = app.read('storage/logs/mail.log')
    const link = /\/change_password\/([A-Za-z0-9_-]{43})/.exec(mail)![1]!
    const changed = await new Client(server.url).submit(`/change_password/${link}`, `/change_password/${link}`, { password: `${PASSWORD} 2`, password_confirmation: `${PASSWORD} 2` })
    assert.equal(changed.location, '/login')
    secrets.add(`${PASSWORD} 2`)
    const reset = await waitFor('auth:password_reset', 1)
    assert.equal(reset.length, 1)
    assert.equal(reset[0]!.user_id, aliceId)

    // Five wrong passwords from one address, then a sixth: refused without a check.
    for (let i = 0; i < 6; i++) await new Client(server.url).postJson('/api/auth', { username: 'alice@example.test', password: `wrong ${i} wrong` })
    const throttled = await waitFor('auth:throttled', 1)
    assert.equal(throttled.length, 1, 'one throttled attempt, one row')
    assert.equal(JSON.parse(throttled[0]!.details).retryAfter > 0, true)
  })

  it('no row holds a password, token, cookie value or reset link', async () => {
    const mail = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log') : ''
    const link = /\/change_password\/([A-Za-z0-9_-]{43})/.exec(mail)
    assert.ok(link, 'the reset mail was sent')
    secrets.add(link[1]!)
    const text = JSON.stringify(await rows())
    for (const secret of secrets) assert.ok(!text.includes(secret), `a secret reached auth_events: ${secret.slice(0, 12)}…`)
    assert.doesNotMatch(text, /change_password|eyJ[A-Za-z0-9_-]{10,}\./)
  })

  it('craft auth:events filters by user, type and time, as lines or JSON', () => {
    const all = JSON.parse(app.craft('auth:events', '--json').stdout) as { type: string; user_id: number | null }[]
    assert.ok(all.length >= 7)
    const failed = JSON.parse(app.craft('auth:events', '--user', 'ALICE@example.test', '--type', 'login_failed', '--json').stdout) as { type: string; user_id: number }[]
    // One from the web form, five before the throttled attempt.
    assert.equal(failed.length, 6)
    for (const e of failed) assert.deepEqual([e.type, e.user_id], ['auth:login_failed', aliceId])
    const future = app.craft('auth:events', '--since', '2999-01-01', '--json')
    assert.deepEqual(JSON.parse(future.stdout), [])
    const lines = app.craft('auth:events', '--user', 'alice@example.test').stdout
    assert.match(lines, /auth:login_failed\s+alice@example\.test#\d+\s+127\.0\.0\.1/)
    const bad = app.craft('auth:events', '--since', 'last tuesday')
    assert.notEqual(bad.code, 0)
    assert.match(bad.stderr, /--since must be an ISO date/)
    const nobody = app.craft('auth:events', '--user', 'nobody@example.test')
    assert.notEqual(nobody.code, 0)
    assert.match(nobody.stderr, /No user with the address/)
  })

  it('craft auth:prune removes audit rows older than keep_days and nothing else', async () => {
    const before = (await rows()).length
    const old = new Date(Date.now() - 400 * 86_400_000)
    await db('auth_events').insert({ user_id: null, type: 'auth:login_failed', ip: '192.0.2.1', user_agent: null, details: '{}', created_at: old })
    const run = app.craft('auth:prune')
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /auth_events: 1 removed/)
    assert.equal((await rows()).length, before)
  })
})
