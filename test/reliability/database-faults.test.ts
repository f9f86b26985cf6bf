/**
 * Fault injection: the database connection lost in the middle of a request that is writing.
 * The request is answered 503 `E_UNAVAILABLE` (JSON or an HTML page, never 500), nothing it
 * wrote survives, and the app serves logins and API calls again without a restart.
 *
 * SQLite (embedded, one connection): the app's own route closes the better-sqlite3 handle
 * between two writes of one transaction. PostgreSQL: the test terminates the app's backends with
 * `pg_terminate_backend` while the route sleeps inside its transaction, then refuses new
 * connections for a while (`ALLOW_CONNECTIONS false`) and lets them in again.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import knex, { type Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { testDriver } from '../helpers/databases.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { PASSWORD, appDb, getToken, registerUser } from '../helpers/security-kit.js'

const driver = testDriver()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const FAULT_ROUTE = `
import { Route, db } from 'trowel'

const row = (tag: string) => ({ name: 'half', email: tag + '-' + Date.now() + '-' + Math.random() + '@example.test', password: 'x', created_at: new Date(), updated_at: new Date() })

export const FAULT_ROUTES = [
  Route.post('/fault/write', async () => {
    const knex = db()
    const client = String((knex.client as { driverName: string }).driverName)
    await knex.transaction(async (trx) => {
      await trx('users').insert(row('half-first'))
      if (client === 'better-sqlite3') {
        const raw = await (trx as unknown as { client: { acquireConnection(): Promise<{ close(): void }> } }).client.acquireConnection()
        raw.close()
      } else if (client === 'pg') {
        await trx.raw('select pg_sleep(5)')
      } else {
        await trx.raw('select sleep(2)')
      }
      await trx('users').insert(row('half-second'))
    })
    return { written: true }
  }).withoutMiddleware('web'),
]
`

describe(`database faults (${driver})`, { skip: driver === 'mysql' ? 'SQLite and PostgreSQL only' : false }, () => {
  let app: TestApp
  let server: Server
  let db: Knex
  let admin: Knex | undefined
  let dbName = ''

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    app.write('routes/fault.ts', FAULT_ROUTE)
    app.edit('routes/web.ts', (t) => `import { FAULT_ROUTES } from './fault.js'\n` + t.replace('export const ROUTES = [', 'export const ROUTES = [\n  ...FAULT_ROUTES,'))
    migrate(app)
    server = await app.serve()
    db = appDb(app)
    await registerUser(server.url, 'faults@example.test')
    if (driver === 'postgres') {
      const url = new URL(app.env.DATABASE_URL!)
      dbName = url.pathname.slice(1)
      url.pathname = '/postgres'
      admin = knex({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 1 } })
    }
  })
  after(async () => {
    if (admin) {
      await admin.raw(`alter database "${dbName}" allow_connections true`).catch(() => {})
      await admin.destroy()
    }
    await db?.destroy()
    await app.cleanup()
  })

  /** Waits until the app's transaction is inside its pg_sleep, so that the fault falls between its two writes. */
  async function untilSleeping(): Promise<void> {
    for (const until = Date.now() + 20_000; Date.now() < until; await sleep(20)) {
      const r = await admin!.raw("select count(*)::int as n from pg_stat_activity where datname = ? and state = 'active' and query like '%pg_sleep(5)%' and pid <> pg_backend_pid()", [dbName])
      if (r.rows[0].n > 0) return
    }
    assert.fail('the transaction never reached its pg_sleep')
  }

  async function terminateBackends(): Promise<number> {
    const r = await admin!.raw('select pg_terminate_backend(pid) as t from pg_stat_activity where datname = ? and pid <> pg_backend_pid()', [dbName])
    return r.rows.length
  }

  async function assertServing(label: string) {
    let status = 0
    // The pool replaces a dead connection on its next checkout; give it a few requests at most.
    for (let i = 0; i < 5 && status !== 302; i++) {
      const c = new Client(server.url)
      status = (await c.submit('/login', '/login', { email: 'faults@example.test', password: PASSWORD })).status
      if (status !== 302) await sleep(200)
    }
    assert.equal(status, 302, `${label}: login does not work again without a restart`)
    const token = await getToken(server.url, 'faults@example.test')
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })).status, 200, `${label}: the API does not work again`)
  }

  it('the connection lost between two writes of one transaction: 503 E_UNAVAILABLE, nothing half-written', async () => {
    const pending = new Client(server.url).request('POST', '/fault/write', { headers: { accept: 'application/json' } })
    if (driver === 'postgres') {
      await untilSleeping()
      assert.ok((await terminateBackends()) > 0, 'no backend to terminate')
    }
    const r = await pending
    assert.equal(r.status, 503, `${r.status} ${r.text}`)
    assert.equal(r.json().code, 'E_UNAVAILABLE')
    assert.doesNotMatch(r.text, /stack|at .*\.js:\d+/)
    const half = await db('users').where('email', 'like', 'half-%')
    assert.deepEqual(half, [], 'a write of the failed transaction survived')
    await assertServing('after the lost connection')
  })

  it('the same fault on a web page is an HTML 503 page', async () => {
    const pending = new Client(server.url).request('POST', '/fault/write', { headers: { accept: 'text/html' } })
    if (driver === 'postgres') {
      await untilSleeping()
      await terminateBackends()
    }
    const r = await pending
    assert.equal(r.status, 503)
    assert.match(r.headers.get('content-type') ?? '', /text\/html/)
    assert.match(r.text, /E_UNAVAILABLE/)
    await assertServing('after the second fault')
  })

  it('PostgreSQL refusing connections for a while: 503 on every path, then recovery', { skip: driver !== 'postgres' ? 'PostgreSQL only' : false }, async () => {
    const token = await getToken(server.url, 'faults@example.test')
    await admin!.raw(`alter database "${dbName}" allow_connections false`)
    await terminateBackends()
    try {
      const login = await new Client(server.url).request('POST', '/api/auth', { json: { username: 'faults@example.test', password: PASSWORD } })
      assert.equal(login.status, 503, `api auth: ${login.status} ${login.text}`)
      assert.equal(login.json().code, 'E_UNAVAILABLE')
      const me = await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })
      assert.equal(me.status, 503, `api me: ${me.status} ${me.text}`)
      const page = await new Client(server.url).get('/login')
      assert.ok(page.status === 200 || page.status === 503, `login page: ${page.status}`)
      const web = await new Client(server.url).request('POST', '/register', { form: { name: 'x' } })
      assert.ok(web.status === 503 || web.status === 419, `register: ${web.status}`)
    } finally {
      await admin!.raw(`alter database "${dbName}" allow_connections true`)
    }
    await assertServing('after connections were allowed again')
    assert.doesNotMatch(server.output(), /http\.unhandled/)
  })
})
