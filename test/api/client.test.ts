/**
 * Black-box: `trowel/client` against a real app with the JWT API (token families, `expires` of
 * 6 s so a token really expires), and `craft client`. The client logs in, calls the API, and after
 * the token expired, 20 concurrent calls cost one reauth; two clients sharing storage (two tabs)
 * with Web Locks make one reauth, and without any coordination both still succeed because the
 * server answers a replaced token inside its reuse window with the same successor. The second
 * factor goes through `auth.twoFactor`; logout ends the token. `craft client` writes
 * client/api.ts, which type-checks with `tsc --noEmit`.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import type { Knex } from 'knex'
import * as OTPAuth from 'otpauth'
import { createClient, memoryStorage, TrowelError, type FetchLike, type LockManagerLike } from 'trowel/client'
import { newApp, migrate, runNode, ROOT, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps, setJwtConfig } from '../helpers/seed-steps.js'
import { PASSWORD, appDb, decodeJwt } from '../helpers/security-kit.js'
import { startSmtpPeer, type SmtpPeer } from '../helpers/smtp-peer.js'
import { SUBJECT } from '../helpers/email-login-kit.js'

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),
  Route.post('/echo', ({ request }) => ({ data: request.post('text') })).name('api.echo'),
]
`

/**
 * A fetch that counts the reauths it sends, each held back `delay` ms, or until `together`
 * reauths have been sent: so the other "tab" gets its own 401 and reads storage before the first
 * reauth's answer is stored.
 */
function counting(options: { delay?: number; together?: number } = {}): { fetch: FetchLike; reauths: () => number } {
  let reauths = 0
  let release = () => {}
  const together = new Promise<void>((resolve) => (release = resolve))
  return {
    fetch: async (input, init) => {
      if (input.endsWith('/api/reauth')) {
        reauths++
        if (options.together !== undefined) {
          // Held until that many reauths are on their way (10 s at most: the count then tells).
          if (reauths >= options.together) release()
          await Promise.race([together, new Promise((resolve) => setTimeout(resolve, 10_000))])
        } else if (options.delay) await new Promise((resolve) => setTimeout(resolve, options.delay))
      }
      return fetch(input, init)
    },
    reauths: () => reauths,
  }
}

/** Web Locks shared by "tabs" of one test (a browser's navigator.locks). */
function sharedLocks(): LockManagerLike {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    request<T>(_name: string, callback: (lock: unknown) => Promise<T> | T): Promise<T> {
      const run = tail.then(() => callback({}))
      tail = run.catch(() => undefined)
      return run
    },
  }
}

/** Waits until the token's `exp` has passed. */
async function expiryOf(token: string): Promise<void> {
  const [, payload] = decodeJwt(token)
  const wait = payload.exp * 1000 - Date.now() + 250
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
}

describe('trowel/client against a real app', () => {
  let app: TestApp
  let server: Server
  let db: Knex
  let smtp: SmtpPeer

  before(async () => {
    smtp = await startSmtpPeer()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(smtp.port) } })
    applyAuthSteps(app)
    // Sign-in by e-mail, for auth.emailStart and auth.emailCode.
    app.edit('config/auth.ts', (text) => text.replace("'passkeys'],", "'passkeys', 'email_login'],"))
    const r = app.craft('api:install', '--store', 'table')
    assert.equal(r.code, 0, r.stderr)
    applyApiSteps(app, { apiRoutes: API_ROUTES })
    // Tokens live 6 s: the tests wait for them to expire, and the calls that follow a reauth fit
    // in the new token's life on a busy machine.
    setJwtConfig(app, { expires: '0.1' })
    migrate(app)
    server = await app.serve()
    db = appDb(app)
    for (const email of ['ada@example.test', 'tabs@example.test', 'race@example.test']) {
      await new Client(server.url).submit('/register', '/register', { name: 'Client User', email, password: PASSWORD, password_confirmation: PASSWORD })
    }
  })
  after(async () => {
    await db?.destroy()
    await app?.cleanup()
    await smtp?.close()
  })

  it('craft client writes client/api.ts with the API routes, and it type-checks', () => {
    const r = app.craft('client')
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /Created client\/api\.ts/)
    const source = app.read('client/api.ts')
    for (const path of ['"/api/me"', '"/api/echo"', '"/api/auth"', '"/api/reauth"']) assert.ok(source.includes(path), path)
    // Its helpers give exact bodies where the document has them (the token routes).
    app.write('client/check.ts', `import type { Answer, Body } from './api.js'
export const ok: Answer<'/api/auth', 'post'> = { data: 'token' }
// @ts-expect-error: the token is a string
export const bad: Answer<'/api/auth', 'post'> = { data: 1 }
export const body: Body<'/api/auth', 'post'> = { username: 'a@example.com', password: 'x' }
// @ts-expect-error: the password is required
export const missing: Body<'/api/auth', 'post'> = { username: 'a@example.com' }
`)
    const tsc = runNode([join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', 'client/api.ts', 'client/check.ts'], { cwd: app.dir })
    assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr)
  })

  it('logs in, calls the API, and after expiry 20 concurrent calls cost one reauth', async () => {
    const counter = counting()
    const client = createClient({ baseUrl: server.url, fetch: counter.fetch, locks: null, broadcastChannel: null })
    const token = await client.auth.login('ada@example.test', PASSWORD)
    assert.equal(((await client.get('/api/me')) as any).data.email, 'ada@example.test')
    assert.deepEqual(await client.post('/api/echo', { text: 'hi' }), { data: 'hi' })
    await expiryOf(token)
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.get<{ data: { email: string } }>('/api/me')))
    assert.ok(answers.every((a) => a.data.email === 'ada@example.test'))
    assert.equal(counter.reauths(), 1)
    assert.notEqual(await client.auth.token(), token)
  })

  it('two tabs sharing storage: with Web Locks one reauth; racing without any, both succeed (reuse window)', async () => {
    for (const coordinated of [true, false]) {
      // Racing, each tab's reauth is held until the other's is sent too, so both send the same
      // token whatever the machine's load, and the reuse window must answer both.
      const counter = coordinated ? counting({ delay: 200 }) : counting({ together: 2 })
      const storage = memoryStorage()
      const locks = coordinated ? sharedLocks() : null
      const tab1 = createClient({ baseUrl: server.url, fetch: counter.fetch, storage, locks, broadcastChannel: null })
      const tab2 = createClient({ baseUrl: server.url, fetch: counter.fetch, storage, locks, broadcastChannel: null })
      const email = coordinated ? 'tabs@example.test' : 'race@example.test'
      const token = await tab1.auth.login(email, PASSWORD)
      await expiryOf(token)
      const calls = [...Array.from({ length: 10 }, () => tab1.get('/api/me')), ...Array.from({ length: 10 }, () => tab2.get('/api/me'))]
      const results = await Promise.allSettled(calls)
      const failures = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason)
      assert.deepEqual(failures, [], `${coordinated ? 'locks' : 'race'}: no "already used" failure`)
      if (coordinated) assert.equal(counter.reauths(), 1)
      else assert.equal(counter.reauths(), 2, 'each tab reauthenticated with the same token')
      // Still one family, still working.
      assert.equal(((await tab2.get('/api/me')) as any).data.email, email)
    }
  })

  it('the second factor: E_MFA_REQUIRED with mfaToken, then auth.twoFactor; logout ends the token', async () => {
    const email = 'totp@example.test'
    const owner = new Client(server.url)
    await owner.submit('/register', '/register', { name: 'Totp User', email, password: PASSWORD, password_confirmation: PASSWORD })
    await db('users').where('email', email).update({ email_verified_at: new Date() })
    await owner.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
    const page = await owner.get('/account/two-factor')
    const secret = /aria-label="Setup key ([A-Z2-7]+)"/.exec(page.text)?.[1]
    assert.ok(secret, page.text)
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' })
    const enrolled = await owner.post('/account/two-factor', { __token: owner.csrf(), code: totp.generate() }, { accept: 'application/json' })
    assert.equal(enrolled.status, 200, enrolled.text)

    const client = createClient({ baseUrl: server.url, locks: null, broadcastChannel: null })
    const error = await client.auth.login(email, PASSWORD).catch((e: unknown) => e)
    assert.ok(error instanceof TrowelError)
    assert.equal(error.status, 401)
    assert.equal(error.code, 'E_MFA_REQUIRED')
    assert.ok(error.mfaToken)
    assert.equal(await client.auth.token(), null)
    const wrong = (await client.auth.twoFactor(error.mfaToken, '000000').catch((e: unknown) => e)) as TrowelError
    assert.equal(wrong.code, 'E_VALIDATION')
    assert.ok(wrong.errors?.code)
    const token = await client.auth.twoFactor(error.mfaToken, totp.generate({ timestamp: Date.now() + 30_000 }))
    assert.deepEqual(decodeJwt(token)[1].amr, ['pwd', 'otp'])
    assert.equal(((await client.get('/api/me')) as any).data.email, email)

    await client.auth.logout()
    assert.equal(await client.auth.token(), null)
    const reauth = await new Client(server.url).postJson('/api/reauth', { token })
    assert.equal(reauth.status, 401, 'a logged-out token can no longer be reauthenticated')
  })

  it('sign-in by e-mail: emailStart mails a code, emailCode exchanges it for a token', async () => {
    const client = createClient({ baseUrl: server.url, locks: null, broadcastChannel: null })
    await client.auth.emailStart('ada@example.test')
    let code = ''
    for (const deadline = Date.now() + 10_000; code === '' && Date.now() < deadline; ) {
      code = smtp.messages.filter((m) => m.to.includes('ada@example.test')).map((m) => SUBJECT.exec(m.raw)?.[2] ?? '').find(Boolean) ?? ''
      if (code === '') await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.match(code, /^\d{6}$/)
    const wrong = (await client.auth.emailCode('ada@example.test', code === '000000' ? '111111' : '000000').catch((e: unknown) => e)) as TrowelError
    assert.equal(wrong.code, 'E_INVALID_CREDENTIALS')
    const token = await client.auth.emailCode('ada@example.test', code)
    assert.deepEqual(decodeJwt(token)[1].amr, ['email'])
    assert.equal(((await client.get('/api/me')) as any).data.email, 'ada@example.test')
    const invalid = (await client.auth.emailStart('not an address').catch((e: unknown) => e)) as TrowelError
    assert.equal(invalid.code, 'E_VALIDATION')
    assert.ok(invalid.errors?.email)
  })
})
