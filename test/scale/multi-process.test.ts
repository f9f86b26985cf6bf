/**
 * Black-box: two independently started processes of one app sharing the database and Redis
 * (sessions and login throttling), behaving as one process does; and `--workers 2` under a
 * bounded load with zero errors. Needs Redis on 127.0.0.1:6379 (REDIS_URL overrides); skipped
 * with a printed reason when none answers. CI runs it on SQLite, PostgreSQL and MariaDB.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createConnection } from 'node:net'
import { randomBytes } from 'node:crypto'
import autocannon from 'autocannon'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps, setJwtConfig } from '../helpers/seed-steps.js'

const PASSWORD = 'correct horse battery staple'
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

async function redisReachable(): Promise<boolean> {
  const url = new URL(REDIS_URL)
  return new Promise((resolve) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port || 6379) })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
    socket.setTimeout(1000, () => {
      socket.destroy()
      resolve(false)
    })
  })
}

const reachable = await redisReachable()
if (!reachable) console.log(`# skipping the multi-process tests: no Redis at ${REDIS_URL}`)

describe('two processes sharing the database and Redis', { skip: !reachable && `no Redis at ${REDIS_URL}` }, () => {
  let app: TestApp
  let a: Server
  let b: Server
  const tag = randomBytes(4).toString('hex')
  const email = (name: string) => `${name}-${tag}@example.test`
  const shared = { SESSION_DRIVER: 'redis', THROTTLE_DRIVER: 'redis', REDIS_URL }

  before(async () => {
    app = await newApp({ env: shared })
    applyAuthSteps(app)
    applyApiSteps(app)
    migrate(app)
    ;[a, b] = await Promise.all([app.serve(), app.serve()])
  })
  after(() => app.cleanup())

  async function register(base: string, who: string): Promise<Client> {
    const client = new Client(base)
    const r = await client.submit('/register', '/register', { name: who, email: email(who), password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home')
    return client
  }

  it('register on A, log in on B', async () => {
    await register(a.url, 'ann')
    const onB = new Client(b.url)
    const r = await onB.submit('/login', '/login', { email: email('ann'), password: PASSWORD })
    assert.equal(r.location, '/home')
    assert.equal((await onB.get('/home')).status, 200)
  })

  it('a session from A works on B, and logout on B revokes it on A', async () => {
    const client = await register(a.url, 'bob')
    const onB = new Client(b.url)
    for (const [k, v] of client.cookies) onB.cookies.set(k, v)
    const home = await onB.get('/home')
    assert.equal(home.status, 200)
    assert.match(home.text, /bob/)
    const out = await onB.post('/logout', { __token: onB.csrf() })
    assert.equal(out.location, '/login')
    assert.equal((await client.get('/home')).status, 302, 'A no longer accepts the cookie')
  })

  it('the throttle counts failures made on A and B together', async () => {
    await register(a.url, 'cy')
    for (const [i, base] of [a.url, b.url, a.url, b.url, a.url].entries()) {
      const r = await new Client(base).submit('/login', '/login', { email: email('cy'), password: `wrong password ${i}` })
      assert.equal(r.location, '/login')
    }
    const onB = new Client(b.url)
    const blocked = await onB.submit('/login', '/login', { email: email('cy'), password: PASSWORD })
    assert.equal(blocked.location, '/login', 'the right password is refused while throttled')
    assert.match((await onB.get('/login')).text, /Too many attempts/)
    const api = await new Client(a.url).postJson('/api/auth', { username: email('cy'), password: PASSWORD })
    assert.equal(api.status, 429)
  })

  it('20 concurrent reauths with one token over A and B: exactly one winner', async () => {
    await register(a.url, 'dee')
    const issued = await new Client(b.url).postJson('/api/auth', { username: email('dee'), password: PASSWORD })
    const token = issued.json().data
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => new Client(i % 2 ? a.url : b.url).postJson('/api/reauth', { token })))
    assert.equal(results.filter((r) => r.status === 200).length, 1, results.map((r) => r.status).join(','))
  })

  it('a version bump applied to both revokes old tokens on both', async () => {
    await register(a.url, 'eve')
    const token = (await new Client(a.url).postJson('/api/auth', { username: email('eve'), password: PASSWORD })).json().data
    for (const s of [a, b]) assert.equal((await new Client(s.url).get('/api/me', { authorization: `Bearer ${token}` })).status, 200)
    await Promise.all([a.stop(), b.stop()])
    setJwtConfig(app, { version: '2' })
    ;[a, b] = await Promise.all([app.serve(), app.serve()])
    for (const s of [a, b]) assert.equal((await new Client(s.url).get('/api/me', { authorization: `Bearer ${token}` })).status, 401)
  })

  it('--workers 2 under a bounded load: zero errors', async () => {
    await register(a.url, 'fay')
    const token = (await new Client(a.url).postJson('/api/auth', { username: email('fay'), password: PASSWORD })).json().data
    const cluster = await app.serve({}, ['--workers', '2'])
    assert.match(cluster.output(), /with 2 workers/)
    const result = await autocannon({
      url: `${cluster.url}/api/me`,
      headers: { authorization: `Bearer ${token}` },
      connections: 8,
      duration: 3,
    })
    console.log(`# --workers 2 on ${app.env.DB_CONNECTION}: ${Math.round(result.requests.average)} req/s, ${result.errors} errors, ${result.non2xx} non-2xx`)
    assert.equal(result.errors, 0)
    assert.equal(result.non2xx, 0)
    assert.ok(result.requests.total > 0)
    assert.equal(await cluster.stop('SIGTERM'), 0)
  })
})

describe('only DATABASE_URL and REDIS_URL set: two processes still behave as one', { skip: !reachable && `no Redis at ${REDIS_URL}` }, () => {
  let app: TestApp
  let a: Server
  let b: Server
  const tag = randomBytes(4).toString('hex')
  const email = (name: string) => `${name}-${tag}@example.test`
  let server = false

  before(async () => {
    // No SESSION_DRIVER or THROTTLE_DRIVER: the generated .env's cookie sessions stay; REDIS_URL
    // alone moves the throttle to Redis. On PostgreSQL/MariaDB, DB_CONNECTION is blanked so that
    // only DATABASE_URL (with .env's DB_CONNECTION=sqlite underneath) picks the database.
    app = await newApp({ env: { REDIS_URL } })
    server = app.env.DB_CONNECTION !== 'sqlite'
    if (server) app.env.DB_CONNECTION = ''
    applyAuthSteps(app)
    applyApiSteps(app)
    migrate(app)
    ;[a, b] = await Promise.all([app.serve(), app.serve()])
  })
  after(() => app.cleanup())

  it('the database named by DATABASE_URL is used, not .env’s SQLite', { skip: !process.env.DATABASE_URL && 'SQLite run' }, () => {
    assert.ok(server)
    assert.equal(app.exists('storage/database.sqlite'), false, 'no SQLite file was created')
  })

  it('register on A, log in on B, and failures on A and B are throttled together', async () => {
    const ann = new Client(a.url)
    const r = await ann.submit('/register', '/register', { name: 'ann', email: email('ann'), password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home')
    const onB = new Client(b.url)
    assert.equal((await onB.submit('/login', '/login', { email: email('ann'), password: PASSWORD })).location, '/home')
    for (const [i, base] of [a.url, b.url, a.url, b.url, a.url].entries()) {
      await new Client(base).submit('/login', '/login', { email: email('ann'), password: `wrong password ${i}` })
    }
    const api = await new Client(b.url).postJson('/api/auth', { username: email('ann'), password: PASSWORD })
    assert.equal(api.status, 429, 'five failures spread over two processes throttle the account on both')
  })
})
