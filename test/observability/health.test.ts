/**
 * Black-box: GET /health of a generated app served by `craft serve`: 200 `{"status":"ok"}`, JSON,
 * `Cache-Control: no-store`, no cookie, no log line; 503 `{"status":"unavailable"}` while the
 * database is unavailable and 200 again, without a restart, once it is back; an app's own
 * GET /health wins.
 *
 * How the database is taken away:
 * - SQLite (embedded, one open handle): a test route of the app closes the handle, as an I/O
 *   error would, and the test renames the database file's folder, so the pool cannot reopen it;
 *   renaming it back lets the next probe reopen it.
 * - PostgreSQL and MariaDB: the app reaches its server through a TCP relay in this test process;
 *   the test cuts every relayed connection and refuses new ones, then relays again. Nothing on
 *   the server changes, so nothing is left behind if the test stops half-way.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createConnection, createServer, type Server as NetServer, type Socket } from 'node:net'
import { renameSync } from 'node:fs'
import { join } from 'node:path'
import { newApp, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { testDriver } from '../helpers/databases.js'

const driver = testDriver()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const CLOSE_ROUTE = `
import { Route, db } from 'trowel'

export const TEST_ROUTES = [
  // SQLite only: closes the connection's handle, as an I/O error would.
  Route.get('/__test/close-database', async () => {
    const client = db().client as unknown as { acquireConnection(): Promise<{ close(): void }>; releaseConnection(c: unknown): Promise<void> }
    const raw = await client.acquireConnection()
    raw.close()
    await client.releaseConnection(raw)
    return { closed: true }
  }).withoutMiddleware('web'),
]
`

/** A TCP relay to the database server that can cut every connection and refuse new ones. */
class Relay {
  readonly #server: NetServer
  readonly #sockets = new Set<Socket>()
  #up = true
  port = 0

  constructor(readonly target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      if (!this.#up) return client.destroy()
      const upstream = createConnection(target)
      for (const s of [client, upstream]) {
        this.#sockets.add(s)
        s.on('close', () => this.#sockets.delete(s))
        s.on('error', () => {
          client.destroy()
          upstream.destroy()
        })
      }
      client.pipe(upstream).pipe(client)
    })
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve))
    this.port = (this.#server.address() as { port: number }).port
  }

  down(): void {
    this.#up = false
    for (const s of this.#sockets) s.destroy()
  }

  up(): void {
    this.#up = true
  }

  close(): Promise<void> {
    this.down()
    return new Promise((resolve) => this.#server.close(() => resolve()))
  }
}

async function health(server: Server) {
  return new Client(server.url).get('/health')
}

/** Polls /health until it answers `status` (or the deadline passes); returns the last answer. */
async function waitForHealth(server: Server, status: number, deadlineMs = 20_000) {
  const until = Date.now() + deadlineMs
  let r = await health(server)
  while (r.status !== status && Date.now() < until) {
    await sleep(250)
    r = await health(server)
  }
  return r
}

describe(`GET /health, black-box (${driver})`, () => {
  let app: TestApp
  let server: Server
  let relay: Relay | undefined
  const serveEnv: Record<string, string> = {}

  before(async () => {
    app = await newApp()
    if (driver === 'sqlite') {
      serveEnv.DB_DATABASE = 'storage/probe-db/app.sqlite'
      app.write('routes/test-routes.ts', CLOSE_ROUTE)
      app.edit('routes/web.ts', (t) => `import { TEST_ROUTES } from './test-routes.js'\n` + t.replace('export const ROUTES = [', 'export const ROUTES = [\n  ...TEST_ROUTES,'))
    } else {
      const url = new URL(app.env.DATABASE_URL!)
      relay = new Relay({ host: url.hostname, port: Number(url.port || (driver === 'postgres' ? 5432 : 3306)) })
      await relay.listen()
      url.hostname = '127.0.0.1'
      url.port = String(relay.port)
      serveEnv.DATABASE_URL = url.toString()
    }
    server = await app.serve(serveEnv)
  })
  after(async () => {
    await app.cleanup()
    await relay?.close()
  })

  it('answers 200 {"status":"ok"}: JSON, no-store, no cookie, not logged', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const r = await new Client(server.url).request(method, '/health')
      assert.equal(r.status, 200, method)
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/)
      assert.equal(r.headers.get('cache-control'), 'no-store')
      assert.deepEqual(r.setCookies, [], 'no cookie')
      if (method === 'GET') assert.deepEqual(r.json(), { status: 'ok' })
    }
    await sleep(100)
    assert.doesNotMatch(server.output(), /\/health/)
  })

  it('turns 503 {"status":"unavailable"} while the database is unavailable, and 200 again without a restart', async () => {
    const dir = join(app.dir, 'storage', 'probe-db')
    if (driver === 'sqlite') {
      assert.equal((await new Client(server.url).get('/__test/close-database')).status, 200)
      renameSync(dir, `${dir}-away`)
    } else {
      relay!.down()
    }
    try {
      const down = await waitForHealth(server, 503)
      assert.equal(down.status, 503, down.text)
      assert.deepEqual(down.json(), { status: 'unavailable' })
      assert.equal(down.headers.get('cache-control'), 'no-store')
      assert.equal((await health(server)).status, 503, 'stays unavailable while the database is')
    } finally {
      if (driver === 'sqlite') renameSync(`${dir}-away`, dir)
      else relay!.up()
    }
    const back = await waitForHealth(server, 200)
    assert.equal(back.status, 200, back.text)
    assert.deepEqual(back.json(), { status: 'ok' })
    assert.equal((await health(server)).status, 200)
    assert.doesNotMatch(server.output(), /http\.unhandled/)
    assert.doesNotMatch(server.output(), /\/health/)
  })

  it("an app's own GET /health wins over the framework's", async () => {
    await server.stop()
    app.edit('routes/web.ts', (t) => t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/health', () => ({ mine: true })).withoutMiddleware('web'),"))
    server = await app.serve(serveEnv)
    const r = await health(server)
    assert.equal(r.status, 200)
    assert.deepEqual(r.json(), { mine: true })
  })
})
