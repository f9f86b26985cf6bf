/**
 * Black-box: per-device token families (`DRIVERS.jwt.store = 'table'`, installed by
 * `craft api:install --store table`). Each login is a family with its own `fid`; reauth rotates
 * within it; logout ends one family only; 20 concurrent reauths with one token (in one process,
 * and split across two `craft serve` processes on one database) make one rotation and all answer
 * the same successor; a replaced token replayed after `reuse_window` revokes the whole family
 * (401 E_TOKEN_REUSED, an auth_events row, a mail to the owner); `max_age` ends reauth;
 * `authenticates: true` refuses a replaced token; the devices page lists and ends a family;
 * a password change ends every family. Only SHA-256 digests are stored (the successor kept for the
 * window is encrypted).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { appDb } from '../helpers/security-kit.js'

const PASSWORD = 'correct horse battery staple'
const NEW_PASSWORD = 'another long passphrase 42'
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0'
const CURL = 'curl/8.5.0'
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')
const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })),
  // auth.user(): the user only while this token is its family's current one.
  Route.get('/whoami', ({ auth }) => ({ data: auth.user() })).middleware(['guard:jwt']),
]
`

describe('per-device token families (store: table)', () => {
  let app: TestApp
  let server: Server
  let db: Knex
  let install: { code: number; stdout: string; stderr: string }
  let seq = 0

  /** config/api.ts's jwt driver: the keys given (TypeScript source) after `store: 'table',`. */
  function configure(values: string): void {
    app.edit('config/api.ts', (t) => t.replace(/store: 'table',[^\n]*?(algorithm:)/, `store: 'table', ${values} $1`))
  }

  async function restart(values: string): Promise<void> {
    await server.stop()
    configure(values)
    server = await app.serve()
  }

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    applyAuthSteps(app)
    install = app.craft('api:install', '--store', 'table')
    applyApiSteps(app, { apiRoutes: API_ROUTES, loadUser: true })
    // Families alone, as an app without token epochs has them (a new app's api:install turns epochs
    // on: then a detected reuse ends every token of the user, the last test's case).
    app.edit('config/api.ts', (t) => t.replace(", revocation: 'epoch'", ''))
    app.edit('config/auth.ts', (t) =>
      t
        .replace(/\blogin: \{ attempts: [^}]*\}/, 'login: null')
        .replace(/\bip: \{ attempts: [^}]*\}/, 'ip: null')
        .replace(/\baccount: \{ attempts: [^}]*\}/, 'account: null')
        .replace(/\bregister: \{ attempts: [^}]*\}/, 'register: null')
        .replace(/\bconfirm: \{ attempts: [^}]*\}/, 'confirm: null'),
    )
    migrate(app)
    server = await app.serve()
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
  })

  /** A new registered user; returns the address and a logged-in web client. */
  async function newUser(): Promise<{ email: string; web: Client; id: number }> {
    const email = `family${++seq}-${Date.now().toString(36)}@example.test`
    const web = new Client(server.url)
    web.extraHeaders['user-agent'] = FIREFOX
    const r = await web.submit('/register', '/register', { name: 'Family Owner', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.notEqual(r.location, '/register', `registration failed: ${r.text.slice(0, 300)}`)
    const id = Number((await db('users').where('email', email).first('id')).id)
    return { email, web, id }
  }

  async function login(email: string, ua = CURL, base = server.url, password = PASSWORD): Promise<string> {
    const r = await new Client(base).postJson('/api/auth', { username: email, password }, { 'user-agent': ua })
    assert.equal(r.status, 200, r.text)
    return r.json().data
  }

  function reauth(token: string, base = server.url): Promise<HttpResult> {
    return new Client(base).postJson('/api/reauth', { token }, { 'user-agent': CURL })
  }

  function get(path: string, token: string): Promise<HttpResult> {
    return new Client(server.url).get(`/api${path}`, { authorization: `Bearer ${token}` })
  }

  /** The email of `auth.user()` on a guard:jwt route: null when the token is not its family's current one. */
  async function whoami(token: string): Promise<string | null> {
    const r = await get('/whoami', token)
    assert.equal(r.status, 200, r.text.slice(0, 300))
    return r.json().data?.email ?? null
  }

  async function auditRows(type: string, userId: number, count = 1): Promise<Record<string, unknown>[]> {
    let rows: Record<string, unknown>[] = []
    for (let i = 0; i < 50; i++) {
      rows = await db('auth_events').where({ type, user_id: userId })
      if (rows.length >= count) break
      await sleep(100)
    }
    return rows
  }

  it('craft api:install --store table wrote the migration and store: \'table\'; craft migration create_api_tokens_table writes the same', () => {
    assert.equal(install.code, 0, install.stderr)
    assert.match(app.read('config/api.ts'), /jwt: \{ store: 'table',/)
    assert.match(app.craft('migrate:status').stdout, /create_api_tokens_table/)
    const r = app.craft('migration', 'create_api_tokens_table')
    assert.equal(r.code, 0, r.stderr)
    const name = /Created (databases\/migrations\/\S+_create_api_tokens_table\.ts)/.exec(r.stdout)![1]!
    assert.match(app.read(name), /createTable\('api_tokens'/)
    rmSync(join(app.dir, name))
    // Running it again changes nothing.
    const again = app.craft('api:install', '--store', 'table')
    assert.equal(again.code, 0, again.stderr)
    assert.equal((app.read('config/api.ts').match(/store:/g) ?? []).length, 1)
  })

  it('two devices are two families; each reauths on its own; logging one out leaves the other', async () => {
    const { email, id } = await newUser()
    const a1 = await login(email, FIREFOX)
    const b1 = await login(email, CURL)
    assert.equal(typeof claims(a1).fid, 'string')
    assert.notEqual(claims(a1).fid, claims(b1).fid)
    const a2 = (await reauth(a1)).json().data as string
    const b2 = (await reauth(b1)).json().data as string
    assert.equal(claims(a2).fid, claims(a1).fid, 'reauth stays in its family')
    assert.equal(claims(b2).fid, claims(b1).fid)
    assert.notEqual(a2, a1)
    assert.equal(await whoami(a2), email)
    assert.equal(await whoami(a1), null, 'a replaced token authenticates nobody')

    // Only digests at rest: no column of any row holds a token.
    const rows = await db('api_tokens').where('user_id', id)
    assert.equal(rows.length, 4)
    const text = JSON.stringify(rows)
    for (const t of [a1, a2, b1, b2]) {
      assert.ok(!text.includes(t) && !text.includes(t.split('.')[2]!), 'a token is stored in clear')
      assert.ok(rows.some((r) => r.token_hash === sha256(t)))
    }
    const devices = rows.filter((r) => r.family_id === claims(a1).fid).map((r) => r.device)
    assert.deepEqual([...new Set(devices)], ['Firefox 132 on Windows'])

    const out = await new Client(server.url).request('POST', '/api/logout', { headers: { authorization: `Bearer ${a2}` } })
    assert.equal(out.status, 204, out.text)
    assert.equal((await reauth(a2)).status, 401)
    assert.equal(await whoami(a2), null)
    const b3 = await reauth(b2)
    assert.equal(b3.status, 200, 'the other device is untouched')
    assert.equal(await whoami(b3.json().data), email)

    // RFC 7009 by value: a replaced token revokes nothing; the current one ends its family.
    const r1 = await new Client(server.url).postJson('/api/revoke', { token: b2 })
    assert.equal(r1.status, 200)
    assert.equal(await whoami(b3.json().data), email)
    const r2 = await new Client(server.url).postJson('/api/revoke', { token: b3.json().data })
    assert.equal(r2.status, 200)
    assert.equal(await whoami(b3.json().data), null)
    assert.equal((await reauth(b3.json().data)).status, 401)
  })

  it('20 concurrent reauths with one token: one rotation, every answer the same successor', async () => {
    const { email } = await newUser()
    const t1 = await login(email)
    // Inside the default 10 s window.
    const answers = await Promise.all(Array.from({ length: 20 }, () => reauth(t1)))
    assert.deepEqual(answers.map((a) => a.status), Array(20).fill(200), answers.map((a) => a.text).join('\n').slice(0, 1500))
    const tokens = new Set(answers.map((a) => a.json().data))
    assert.equal(tokens.size, 1, 'every caller inside the window receives the same successor')
    const [t2] = [...tokens] as string[]
    assert.equal((await db('api_tokens').where('family_id', claims(t1).fid)).length, 2, 'exactly one rotation')
    assert.equal(await whoami(t2!), email)
    // A retry inside the window is still answered the successor.
    assert.equal((await reauth(t1)).json().data, t2)
    const t3 = await reauth(t2!)
    assert.equal(t3.status, 200, 'the successor rotates on')
    // A quick second rotation does not turn a retry of the first token into reuse.
    assert.equal((await reauth(t1)).json().data, t2)
    assert.equal(await whoami(t3.json().data), email)
  })

  it('the same across two server processes on one database', async () => {
    const second = await app.serve()
    try {
      const { email } = await newUser()
      const t1 = await login(email)
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => reauth(t1, i % 2 ? second.url : server.url)))
      assert.deepEqual(answers.map((a) => a.status), Array(20).fill(200), answers.map((a) => a.text).join('\n').slice(0, 1500))
      assert.equal(new Set(answers.map((a) => a.json().data)).size, 1)
      assert.equal((await db('api_tokens').where('family_id', claims(t1).fid)).length, 2)
    } finally {
      await second.stop()
    }
  })

  it('a replaced token after the reuse window: 401 E_TOKEN_REUSED, the whole family revoked, audited and mailed', async () => {
    await restart('reuse_window: 1,')
    const { email, id } = await newUser()
    const other = await login(email, FIREFOX)
    const t1 = await login(email)
    const t2 = (await reauth(t1)).json().data as string
    const t3 = (await reauth(t2)).json().data as string
    await sleep(1300)
    const mailBefore = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log').length : 0
    const r = await reauth(t1)
    assert.equal(r.status, 401, r.text)
    assert.equal(r.json().code, 'E_TOKEN_REUSED')
    // Every member of the family is dead, the current one too; the other device lives.
    for (const t of [t1, t2, t3]) {
      assert.equal((await reauth(t)).status, 401)
      assert.equal(await whoami(t), null)
    }
    const rows = await db('api_tokens').where('family_id', claims(t1).fid)
    assert.ok(rows.length >= 3 && rows.every((row) => row.revoked_at !== null && row.successor === null))
    assert.equal((await reauth(other)).status, 200)
    const events = await auditRows('auth:token_reuse_detected', id)
    assert.equal(events.length, 1, 'one event, however many replays')
    assert.equal(JSON.parse(String(events[0]!.details)).familyId, claims(t1).fid)
    let mail = ''
    for (let i = 0; i < 50 && !/old API token/.test(mail); i++) {
      mail = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log').slice(mailBefore) : ''
      if (!/old API token/.test(mail)) await sleep(100)
    }
    assert.match(mail, /An old API token of your account was used again/)
    assert.match(mail, new RegExp(email.replace(/[.]/g, '\\.')))
  })

  it('the devices page lists each family and ends one; a password change ends them all', async () => {
    const { email, web, id } = await newUser()
    const t1 = await login(email, CURL)
    const page = await web.get('/account/devices')
    assert.equal(page.status, 200)
    assert.match(page.text, /curl\/8\.5\.0/)
    const fid = claims(t1).fid as string
    const revoked = await web.submit('/account/devices', `/account/devices/api-${fid}/revoke`, {})
    assert.ok(revoked.status === 302 || revoked.status === 200, `${revoked.status} ${revoked.text.slice(0, 200)}`)
    assert.equal((await reauth(t1)).status, 401, 'the family was ended from the devices page')

    const t2 = await login(email, CURL)
    const t3 = await login(email, FIREFOX)
    const changed = await web.submit('/account', '/account/password', { current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
    assert.equal(changed.status, 302, changed.text.slice(0, 300))
    assert.equal((await reauth(t2)).status, 401)
    assert.equal((await reauth(t3)).status, 401)
    assert.equal(await db('api_tokens').where('user_id', id).whereNull('revoked_at').count({ n: '*' }).first().then((r) => Number(r!.n)), 0)

    // craft auth:prune deletes revoked families.
    const pruned = app.craft('auth:prune')
    assert.equal(pruned.code, 0, pruned.stderr)
    assert.match(pruned.stdout, /api_tokens/)
    assert.equal(await db('api_tokens').whereNotNull('revoked_at').count({ n: '*' }).first().then((r) => Number(r!.n)), 0)
  })

  it('max_age: a family older than it reauths no more (log in again)', async () => {
    // 6 s: a login and its reauth fit in it on a busy machine (1.2 s did not always).
    await restart('max_age: 0.1,')
    const { email } = await newUser()
    const t1 = await login(email)
    assert.equal((await reauth(t1)).status, 200, 'young family rotates')
    const t2 = await login(email)
    await sleep(6500)
    const r = await reauth(t2)
    assert.equal(r.status, 401)
    assert.equal(r.json().code, 'E_REAUTH_FAILED')
    assert.equal((await reauth(await login(email))).status, 200, 'a new login is a new family')
  })

  it('authenticates: true refuses a replaced token on every request', async () => {
    await server.stop()
    // Without the last test's max_age of 6 s: on a loaded machine a family could outlive it between
    // two requests of this test, and a fresh token would be refused as an old family's.
    configure('')
    app.edit('config/api.ts', (t) => t.replace('authenticates: false', 'authenticates: true'))
    assert.doesNotMatch(app.read('config/api.ts'), /max_age/)
    server = await app.serve()
    const { email } = await newUser()
    const t1 = await login(email)
    assert.equal((await get('/me', t1)).status, 200)
    const t2 = (await reauth(t1)).json().data as string
    const refused = await get('/me', t1)
    assert.equal(refused.status, 401)
    assert.equal(refused.json().code, 'E_TOKEN_INVALID')
    // The family's row and the user's are read together: the user is the token's, columns hidden as always.
    const me = await get('/me', t2)
    assert.equal(me.status, 200)
    const data = me.json().data as Record<string, unknown>
    assert.equal(data.email, email)
    for (const hidden of ['password', 'api_token', 'remember_token']) assert.ok(!(hidden in data), `${hidden} shown`)
    for (const key of Object.keys(data)) assert.ok(!key.startsWith('__'), `a token column leaked into the user: ${key}`)
    // Another user's token names its own user, not this one.
    const { email: otherEmail } = await newUser()
    const otherToken = await login(otherEmail)
    assert.equal(((await get('/me', otherToken)).json().data as Record<string, unknown>).email, otherEmail)
    assert.equal(((await get('/me', t2)).json().data as Record<string, unknown>).email, email)
    // A logged-out family, then a deleted user: refused at once.
    assert.equal((await new Client(server.url).request('POST', '/api/logout', { headers: { authorization: `Bearer ${otherToken}` } })).status, 204)
    assert.equal((await get('/me', otherToken)).status, 401)
    await db('users').where('email', email).delete()
    assert.equal((await get('/me', t2)).status, 401, "a deleted user's token")
  })

  it("with revocation: 'epoch' and authenticates: false, a detected reuse refuses every token of the user at once", async () => {
    await server.stop()
    const epoch = app.craft('api:install', '--revocation', 'epoch')
    assert.equal(epoch.code, 0, epoch.stdout + epoch.stderr)
    app.edit('config/api.ts', (t) => t.replace('authenticates: true', 'authenticates: false'))
    configure('reuse_window: 1,')
    migrate(app)
    server = await app.serve()
    const { email } = await newUser()
    const other = await login(email, FIREFOX)
    const t1 = await login(email)
    const t2 = (await reauth(t1)).json().data as string
    assert.equal((await get('/me', t2)).status, 200)
    assert.equal((await get('/me', other)).status, 200)
    await sleep(1300)
    const r = await reauth(t1)
    assert.equal(r.json().code, 'E_TOKEN_REUSED', r.text)
    // Without a query per request: the epoch raised by the detection refuses them in memory.
    assert.equal((await get('/me', t2)).status, 401, "the family's current token")
    assert.equal((await get('/me', other)).status, 401, "the user's other devices too: the token was likely stolen")
    const fresh = await login(email)
    assert.equal((await get('/me', fresh)).status, 200, 'a new login works')
  })
})
