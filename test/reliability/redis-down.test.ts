/**
 * Fault injection: the Redis that holds the attempt budgets goes away and comes back. While it is
 * down, credential routes answer 503 `E_UNAVAILABLE` at once (never a skipped budget, never
 * "wrong password", never a hang), and JWT routes (`authenticates: false`) keep answering; once
 * it is back, logins work again without restarting the app. The test runs its own redis-server
 * on a free port and kills it; skipped when `redis-server` is not installed.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer, Socket } from 'node:net'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { PASSWORD, getToken, registerUser } from '../helpers/security-kit.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const installed = spawnSync('redis-server', ['--version'], { encoding: 'utf8' })
const skip = installed.error || installed.status !== 0 ? 'redis-server is not on PATH' : false
if (skip) console.log(`# skipping the Redis outage test: ${skip}`)

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket()
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(500, () => done(false))
    socket.once('error', () => done(false))
    socket.connect(port, '127.0.0.1', () => {
      socket.write('PING\r\n')
      socket.once('data', (data) => done(data.toString().startsWith('+PONG')))
    })
  })
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  for (let i = 0; i < 100; i++) {
    if (await ping(port)) return child
    await sleep(50)
  }
  child.kill('SIGKILL')
  throw new Error(`redis-server did not start on port ${port}`)
}

async function stopRedis(child: ChildProcess | undefined, port: number): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGKILL')
  await exited
  for (let i = 0; i < 40 && (await ping(port)); i++) await sleep(50)
}

describe('Redis down and back (THROTTLE_DRIVER=redis)', { skip }, () => {
  let app: TestApp
  let server: Server
  let redis: ChildProcess | undefined
  let port = 0
  const login = () => new Client(server.url).postJson('/api/auth', { username: 'outage@example.test', password: PASSWORD })

  before(async () => {
    port = await freePort()
    redis = await startRedis(port)
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    migrate(app)
    server = await app.serve({ THROTTLE_DRIVER: 'redis', REDIS_URL: `redis://127.0.0.1:${port}` })
    await registerUser(server.url, 'outage@example.test')
  })
  after(async () => {
    await stopRedis(redis, port)
    await app?.cleanup()
  })

  it('up: logins work', async () => {
    assert.equal((await login()).status, 200)
  })

  it('down: credential routes answer 503 E_UNAVAILABLE at once; a JWT route still answers', async () => {
    const token = await getToken(server.url, 'outage@example.test')
    await stopRedis(redis, port)
    const logged = server.output().length
    for (let i = 0; i < 3; i++) {
      const r = await login()
      assert.equal(r.status, 503, r.text)
      assert.equal(r.json().code, 'E_UNAVAILABLE')
      const wrong = await new Client(server.url).postJson('/api/auth', { username: 'outage@example.test', password: 'not the password' })
      assert.equal(wrong.status, 503, 'never a "wrong password" while the budgets cannot be counted')
    }
    const me = await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })
    assert.equal(me.status, 200, me.text)
    assert.equal(me.json().data.email, 'outage@example.test')
    const c = new Client(server.url)
    const form = await c.submit('/login', '/login', { email: 'outage@example.test', password: PASSWORD })
    assert.equal(form.status, 503, 'the web form fails closed too')
    assert.match(server.output(), /throttle\.redis_unavailable/)
    // A request never waits for Redis: each refusal's logged cause is the client refusing a command
    // it cannot send at once (no offline queue), never a command that waited for its timeout.
    const refusalsIn = (output: string) => output.slice(logged).split('\n').slice(0, -1).filter((line) => /"status":503/.test(line))
    // The line for a refusal can arrive after its answer: wait for all seven, each whole.
    const refusals = refusalsIn(await server.waitForOutput((output) => refusalsIn(output).length >= 7))
    assert.equal(refusals.length, 7, refusals.join('\n'))
    for (const line of refusals) {
      assert.match(line, /enableOfflineQueue options is false|Connection is closed/, line)
      assert.doesNotMatch(line, /timed out|max retries/i, line)
    }
  })

  it('back: logins work again without restarting the app', async () => {
    redis = await startRedis(port)
    let last = 0
    for (let i = 0; i < 60; i++) {
      last = (await login()).status
      if (last === 200) break
      await sleep(250)
    }
    assert.equal(last, 200, 'no login within 15 s of Redis coming back')
    const c = new Client(server.url)
    assert.equal((await c.submit('/login', '/login', { email: 'outage@example.test', password: PASSWORD })).location, '/home')
  })
})
