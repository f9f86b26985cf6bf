/**
 * Adversarial, over HTTP: the attempt budgets of a generated app (web auth pages and the JWT
 * API). A burst of concurrent wrong passwords gets at most `login.attempts` password checks,
 * counted from the app's own log (`auth.login_failed` is written once per checked password,
 * `auth.throttled` once per refusal), in one process and in two processes sharing Redis or the
 * database; oversized credentials are 422 / 302 back without using any budget; a locked account
 * is announced (`auth.account_locked`) and still lets in the browser that logged into it before.
 * Clients are told apart by X-Forwarded-For behind TRUST_PROXY, so each test has its own.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes, randomInt } from 'node:crypto'
import { Socket } from 'node:net'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { patientHashing } from '../helpers/auth-config.js'
import { Client, type HttpResult } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { PASSWORD, registerUser } from '../helpers/security-kit.js'

const REDIS_URL = 'redis://127.0.0.1:6379'

/** The log lines `line` of `server` whose client address is `ip`. */
function linesOf(servers: Server[], line: string, ip: string): number {
  return servers
    .flatMap((s) => s.output().split('\n'))
    .filter((l) => l.includes(` ${line} `) && l.includes('{'))
    .filter((l) => JSON.parse(l.slice(l.indexOf('{'))).ip === ip).length
}

/** Waits until the log shows `expected` lines in all (the log arrives through a pipe). */
async function settle(servers: Server[], ip: string, expected: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (linesOf(servers, 'auth.login_failed', ip) + linesOf(servers, 'auth.throttled', ip) >= expected) return
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Sets GUARDS.throttle in the app's config/auth.ts, replacing the generated block if there is one. */
function setThrottle(app: TestApp, value: string): void {
  app.edit('config/auth.ts', (t) => {
    const lines = t.split('\n')
    const start = lines.findIndex((l) => /^\s*throttle:/.test(l))
    if (start >= 0) {
      // Through the line that closes its braces (the block may span lines); its doc comment too.
      let depth = 0
      let end = start
      for (; end < lines.length; end++) {
        depth += (lines[end]!.match(/\{/g)?.length ?? 0) - (lines[end]!.match(/\}/g)?.length ?? 0)
        if (depth <= 0) break
      }
      const from = start > 0 && /^\s*\/\*\*.*\*\/\s*$/.test(lines[start - 1]!) ? start - 1 : start
      lines.splice(from, end - from + 1)
    }
    const out = lines.join('\n').replace("  default: 'web',", `  default: 'web',\n  throttle: ${value},`)
    assert.equal(out.match(/throttle:/g)?.length, 1, out)
    return out
  })
}

const statusCounts = (results: HttpResult[]) => results.reduce<Record<number, number>>((t, r) => ({ ...t, [r.status]: (t[r.status] ?? 0) + 1 }), {})
const randomIp = () => `10.${randomInt(100, 250)}.${randomInt(0, 255)}.${randomInt(1, 254)}`

function redisReachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket()
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once('error', () => done(false))
    socket.connect(6379, '127.0.0.1', () => {
      socket.write('PING\r\n')
      socket.once('data', (data) => done(data.toString().startsWith('+PONG')))
    })
  })
}

describe('attempt budgets over HTTP', () => {
  let app: TestApp
  let server: Server

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    // The generated defaults, with a small account budget so that a lockout is quick to reach,
    // and no registration budget (the tests register from one address).
    setThrottle(app, '{ login: { attempts: 5, minutes: 1 }, ip: { attempts: 100, minutes: 60 }, account: { attempts: 8, minutes: 60 }, register: null }')
    // Bursts of checks from one client wait in one line: no 2 s limit on a busy machine.
    patientHashing(app)
    migrate(app)
    server = await app.serve({ TRUST_PROXY: 'true' })
    // One account per test: each has its own account budget (8 here).
    for (const email of ['burst@example.test', 'form@example.test', 'spell@example.test', 'big@example.test', 'long@example.test', 'locked@example.test']) await registerUser(server.url, email)
  })
  after(async () => {
    await app?.cleanup()
  })

  it('50 concurrent wrong passwords on the token route: 5 are checked, 45 get 429 without a check', async () => {
    const ip = '10.10.0.1'
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => new Client(server.url).postJson('/api/auth', { username: 'burst@example.test', password: `wrong password ${i}` }, { 'x-forwarded-for': ip })),
    )
    assert.deepEqual(statusCounts(results), { 401: 5, 429: 45 })
    const refused = results.find((r) => r.status === 429)!
    assert.equal(refused.json().code, 'E_TOO_MANY_REQUESTS')
    assert.ok(Number(refused.headers.get('retry-after')) > 0)
    await settle([server], ip, 50)
    assert.equal(linesOf([server], 'auth.login_failed', ip), 5, 'password checks (auth.login_failed lines)')
    assert.equal(linesOf([server], 'auth.throttled', ip), 45)
    const right = await new Client(server.url).postJson('/api/auth', { username: 'burst@example.test', password: PASSWORD }, { 'x-forwarded-for': ip })
    assert.equal(right.status, 429, 'the right password waits out the window too')
  })

  it('50 concurrent wrong passwords on the web form: 5 are checked, the rest go back with the throttle message', async () => {
    const ip = '10.10.0.2'
    const c = new Client(server.url)
    c.extraHeaders = { 'x-forwarded-for': ip }
    await c.get('/login')
    const token = c.csrf()
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => c.post('/login', { __token: token, email: 'Form@Example.test', password: `wrong ${i} wrong` })))
    assert.deepEqual(statusCounts(results), { 302: 50 })
    assert.ok(results.every((r) => r.location === '/login'))
    await settle([server], ip, 50)
    assert.equal(linesOf([server], 'auth.login_failed', ip), 5)
    assert.equal(linesOf([server], 'auth.throttled', ip), 45)
    // (The burst's own flashes race for the one session; one more attempt, alone, shows the message.)
    assert.equal((await c.post('/login', { __token: token, email: 'form@example.test', password: PASSWORD })).location, '/login')
    assert.match((await c.get('/login')).text, /Too many attempts/)
  })

  it('every spelling of the address is one budget', async () => {
    const ip = '10.10.0.5'
    const spellings = ['spell@example.test', 'SPELL@example.test', ' Spell@Example.Test ', 'spell@EXAMPLE.TEST', '\tspell@example.test\n', 'sPeLL@example.test']
    const statuses: number[] = []
    for (const username of spellings) statuses.push((await new Client(server.url).postJson('/api/auth', { username, password: 'nope nope' }, { 'x-forwarded-for': ip })).status)
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429])
  })

  it('oversized credentials: 422 / 302 back with an error, and no budget used', async () => {
    const ip = '10.10.0.3'
    const headers = { 'x-forwarded-for': ip }
    for (let i = 0; i < 10; i++) {
      const longName = await new Client(server.url).postJson('/api/auth', { username: `${'a'.repeat(400)}@example.test`, password: PASSWORD }, headers)
      assert.equal(longName.status, 422)
      assert.equal(longName.json().code, 'E_VALIDATION')
      assert.ok(longName.json().errors?.username ?? longName.json().details?.errors?.username ?? /username/.test(longName.text), longName.text)
      const longPassword = await new Client(server.url).postJson('/api/auth', { username: 'big@example.test', password: 'p'.repeat(5000) }, headers)
      assert.equal(longPassword.status, 422)
      assert.equal(longPassword.json().code, 'E_VALIDATION')
    }
    const web = new Client(server.url)
    web.extraHeaders = headers
    const form = await web.submit('/login', '/login', { email: `${'b'.repeat(400)}@example.test`, password: PASSWORD })
    assert.equal(form.status, 302)
    assert.equal(form.location, '/login')
    assert.match((await web.get('/login')).text, /field-error[^>]*>The email field must not be greater than 320 bytes/)
    // Had those used the budget, these would be 429.
    for (let i = 0; i < 5; i++) {
      assert.equal((await new Client(server.url).postJson('/api/auth', { username: 'big@example.test', password: `wrong ${i} wrong` }, headers)).status, 401)
    }
    await settle([server], ip, 5)
    assert.equal(linesOf([server], 'auth.throttled', ip), 0)
  })

  it('a password of 1,025 to 4,096 characters is a wrong password: 401, counted', async () => {
    const headers = { 'x-forwarded-for': '10.10.0.4' }
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) statuses.push((await new Client(server.url).postJson('/api/auth', { username: 'long@example.test', password: 'p'.repeat(1025 + i * 600) }, headers)).status)
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429])
  })

  it('a locked account is announced once and still lets in the browser that logged into it before', async () => {
    // One login from a browser: it gets the signed, one-year trowel_device cookie.
    const known = new Client(server.url)
    known.extraHeaders = { 'x-forwarded-for': '10.20.0.1' }
    const first = await known.submit('/login', '/login', { email: 'locked@example.test', password: PASSWORD })
    assert.equal(first.location, '/home')
    const device = first.setCookies.find((c) => c.startsWith('trowel_device='))
    assert.ok(device, 'no trowel_device cookie after a web login')
    assert.match(device, /HttpOnly/i)
    assert.match(device, /SameSite=Lax/i)
    assert.match(device, /Max-Age=31536000/i)
    assert.ok(!(await new Client(server.url).postJson('/api/auth', { username: 'big@example.test', password: PASSWORD }, { 'x-forwarded-for': '10.20.0.9' })).setCookies.some((c) => c.startsWith('trowel_device=')), 'the API sets no device cookie')

    // 7 more attempts from 7 addresses use up the account's 8; the 9th is the first refused.
    for (let i = 0; i < 7; i++) {
      const r = await new Client(server.url).postJson('/api/auth', { username: 'locked@example.test', password: `guess ${i} guess` }, { 'x-forwarded-for': `10.20.1.${i}` })
      assert.equal(r.status, 401)
    }
    for (let i = 0; i < 3; i++) {
      const r = await new Client(server.url).postJson('/api/auth', { username: 'locked@example.test', password: PASSWORD }, { 'x-forwarded-for': `10.20.2.${i}` })
      assert.equal(r.status, 429, 'locked for everyone else, even with the right password')
    }
    for (let i = 0; i < 100 && !server.output().includes(' auth.account_locked '); i++) await new Promise((r) => setTimeout(r, 50))
    const locked = server.output().split('\n').filter((l) => l.includes(' auth.account_locked '))
    assert.equal(locked.length, 1, 'announced once')
    assert.ok(JSON.parse(locked[0]!.slice(locked[0]!.indexOf('{'))).user_id !== null)

    const stranger = new Client(server.url)
    stranger.extraHeaders = { 'x-forwarded-for': '10.20.3.1' }
    const refused = await stranger.submit('/login', '/login', { email: 'locked@example.test', password: PASSWORD })
    assert.equal(refused.location, '/login')
    assert.match((await stranger.get('/login')).text, /Too many attempts/)

    // The known browser logs out (its device cookie stays) and comes back from elsewhere.
    known.extraHeaders = { 'x-forwarded-for': '10.20.3.2' }
    await known.get('/home')
    assert.equal((await known.post('/logout', { __token: known.csrf() })).location, '/login')
    assert.ok(known.cookies.has('trowel_device'), 'logging out keeps the device cookie')
    const again = await known.submit('/login', '/login', { email: 'locked@example.test', password: PASSWORD })
    assert.equal(again.location, '/home', 'the known device logs in despite the lockout')
  })
})

describe('attempt budgets shared by two processes', () => {
  let app: TestApp
  const servers: Server[] = []
  let redisSkip: string | false = false

  before(async () => {
    redisSkip = (await redisReachable()) ? false : `Redis is not reachable on ${REDIS_URL}`
    if (redisSkip) console.log(`# skipping the shared-Redis burst: ${redisSkip}`)
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    setThrottle(app, '{ register: null }')
    // Bursts of checks from one client wait in one line: no 2 s limit on a busy machine.
    patientHashing(app)
    migrate(app)
  })
  after(async () => {
    await app?.cleanup()
  })

  async function burst(driver: Record<string, string>): Promise<void> {
    const pair = [await app.serve({ TRUST_PROXY: 'true', ...driver }), await app.serve({ TRUST_PROXY: 'true', ...driver })]
    servers.push(...pair)
    // Fresh names: Redis keeps its counts between runs.
    const email = `twin-${randomBytes(6).toString('hex')}@example.test`
    await registerUser(pair[0]!.url, email)
    const ip = randomIp()
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => new Client(pair[i % 2]!.url).postJson('/api/auth', { username: email, password: `wrong password ${i}` }, { 'x-forwarded-for': ip })),
    )
    const counts = statusCounts(results)
    assert.ok((counts[401] ?? 0) <= 5, JSON.stringify(counts))
    assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 50, JSON.stringify(counts))
    await settle(pair, ip, 50)
    const checked = linesOf(pair, 'auth.login_failed', ip)
    assert.ok(checked <= 5, `${checked} password checks across both processes`)
    assert.equal(checked + linesOf(pair, 'auth.throttled', ip), 50)
    assert.ok(linesOf([pair[0]!], 'auth.login_failed', ip) + linesOf([pair[0]!], 'auth.throttled', ip) > 0, 'both processes served the burst')
    assert.ok(linesOf([pair[1]!], 'auth.login_failed', ip) + linesOf([pair[1]!], 'auth.throttled', ip) > 0, 'both processes served the burst')
    for (const s of pair) await s.stop()
  }

  it('sharing Redis: 50 concurrent wrong passwords split across both, at most 5 checked', async (t) => {
    if (redisSkip) return t.skip(redisSkip)
    await burst({ THROTTLE_DRIVER: 'redis', REDIS_URL })
  })

  it('sharing the database: the same', async () => {
    await burst({ THROTTLE_DRIVER: 'database' })
  })
})
