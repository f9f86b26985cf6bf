/**
 * Property-based fuzzing (fast-check) of a served app with web auth and the JWT API: random and
 * mutated methods, paths, headers, cookies, tokens and bodies, written as raw HTTP/1.1 on a
 * socket, for a bounded time. Every request gets an answer below 500, the process stays up, and
 * the users table is byte-for-byte what it was.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { PASSWORD, appDb, getToken, rawHttp, registerUser, snapshotUsers } from '../helpers/security-kit.js'

const FUZZ_MS = Number(process.env.FUZZ_MS ?? 10_000)
/** FUZZ_SEED and FUZZ_PATH (from a failure report) replay one run. */
const REPLAY = process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED), path: process.env.FUZZ_PATH } : {}

type Mutation = [number, 'flip' | 'delete' | 'insert' | 'truncate' | 'duplicate' | 'swapcase', string]

function mutate(text: string, mutations: Mutation[]): string {
  let out = text
  for (const [at, kind, ch] of mutations) {
    const i = out.length === 0 ? 0 : at % out.length
    if (kind === 'flip') out = out.slice(0, i) + String.fromCharCode((out.charCodeAt(i) || 65) ^ (1 << (at % 7))) + out.slice(i + 1)
    else if (kind === 'delete') out = out.slice(0, i) + out.slice(i + 1)
    else if (kind === 'insert') out = out.slice(0, i) + ch + out.slice(i)
    else if (kind === 'truncate') out = out.slice(0, i)
    else if (kind === 'duplicate') out = out + out.slice(i)
    else out = out.slice(0, i) + out.slice(i).toUpperCase()
  }
  return out
}

const mutation: fc.Arbitrary<Mutation> = fc.tuple(
  fc.nat(),
  fc.constantFrom('flip' as const, 'delete' as const, 'insert' as const, 'truncate' as const, 'duplicate' as const, 'swapcase' as const),
  fc.constantFrom('.', '=', '%', '\u0000', '"', "'", '\\', '{', '[', 'é', '\uFFFD', ' ', ';', ','),
)
const mutations = fc.array(mutation, { minLength: 1, maxLength: 4 })

describe('fuzzing the served app', () => {
  let app: TestApp
  let server: Server
  let db: Knex
  let token: string
  let cookies: string
  let csrf: string

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    migrate(app)
    server = await app.serve()
    db = appDb(app)
    await registerUser(server.url, 'fuzz@example.test')
    token = await getToken(server.url, 'fuzz@example.test')
    const c = new Client(server.url)
    await c.submit('/login', '/login', { email: 'fuzz@example.test', password: PASSWORD })
    await c.get('/home')
    cookies = c.cookieHeader()
    csrf = c.csrf()
  })
  after(async () => {
    await db?.destroy()
    await app.cleanup()
  })

  it(`random and mutated requests for ${FUZZ_MS / 1000} s: no 5xx, no crash, users table unchanged`, async () => {
    const before = await snapshotUsers(db)
    const paths = ['/', '/login', '/logout', '/home', '/register', '/password_reset', '/change_password', `/change_password/${'a'.repeat(43)}`, '/api/auth', '/api/reauth', '/api/me', '/api/nothing', '/favicon.ico']
    /** Never the genuine token unchanged at /api/reauth (that would legitimately change the table). */
    const notGenuine = (t: string) => (t === token ? t + 'x' : t)

    const path = fc.oneof(
      { arbitrary: fc.constantFrom(...paths), weight: 8 },
      { arbitrary: fc.tuple(fc.constantFrom(...paths), fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 })).map(([p, q]) => `${p}?${new URLSearchParams(q)}`), weight: 3 },
      { arbitrary: fc.tuple(fc.constantFrom(...paths), mutations).map(([p, m]) => mutate(p, m)), weight: 1 },
      { arbitrary: fc.webPath(), weight: 1 },
      { arbitrary: fc.string({ maxLength: 40 }).map((s) => '/' + encodeURI(s)), weight: 1 },
    ).map((p) => (p.startsWith('/') ? p : '/' + p).replace(/[\s]/g, '%20'))

    const body = fc.oneof(
      fc.json({ maxDepth: 3 }),
      fc.object({ maxDepth: 2 }).map((o) => JSON.stringify(o)),
      fc.record({ username: fc.oneof(fc.constant('fuzz@example.test'), fc.string(), fc.json()), password: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null), fc.integer()) }).map((o) => JSON.stringify(o)),
      mutations.map((m) => JSON.stringify({ token: notGenuine(mutate(token, m)) })),
      // A mutation elsewhere in the body can leave the genuine token intact: then it is changed too
      // (an intact token posted to /api/reauth would legitimately replace the stored digest).
      mutations.map((m) => mutate(JSON.stringify({ username: 'fuzz@example.test', password: 'not the password', token }), m).replaceAll(token, `${token}x`)),
      fc.dictionary(fc.constantFrom('email', 'password', 'username', 'name', 'token', '__token', 'next', 'password_confirmation', '__proto__', 'constructor', 'id', 'a[]'), fc.string({ maxLength: 30 })).map((d) => new URLSearchParams(d).toString()),
      fc.constant(`__token=${encodeURIComponent(csrf)}&email=fuzz%40example.test&password=wrong&next=//evil.test`),
      fc.string({ maxLength: 200 }),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
    )

    const header = fc.oneof(
      fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/vnd.api+json', '', 'garbage/\u00ff').map((v) => ['Content-Type', v] as const),
      mutations.map((m) => ['Authorization', `Bearer ${mutate(token, m)}`] as const),
      fc.string({ maxLength: 60 }).map((v) => ['Authorization', v] as const),
      fc.constantFrom('Bearer', 'Bearer ', 'Basic Zm9vOmJhcg==', 'bearer x.y.z').map((v) => ['Authorization', v] as const),
      mutations.map((m) => ['Cookie', mutate(cookies, m)] as const),
      fc.string({ maxLength: 80 }).map((v) => ['Cookie', v] as const),
      fc.constantFrom('application/json', 'text/html', '*/*', 'application/json, text/html').map((v) => ['Accept', v] as const),
      fc.oneof(fc.constant(csrf), mutations.map((m) => mutate(csrf, m))).map((v) => ['X-CSRF-TOKEN', v] as const),
      fc.ipV4().map((v) => ['X-Forwarded-For', v] as const),
      fc.constantFrom('evil.test', '', 'a'.repeat(300), '127.0.0.1:1').map((v) => ['Host', v] as const),
      fc.constantFrom('gzip', 'br', 'identity').map((v) => ['Content-Encoding', v] as const),
      fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), fc.string({ maxLength: 60 })).map(([k, v]) => [k, v] as const),
    )

    const request = fc.record({
      method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'),
      path,
      headers: fc.array(header, { maxLength: 6 }),
      body: fc.option(body, { nil: undefined, freq: 4 }),
      raw: fc.boolean().chain((b) => (b ? fc.constant(false) : fc.constantFrom(false, false, false, true))),
      lengthDelta: fc.constantFrom(0, 0, 0, -1, -5),
    })

    let sent = 0
    let failure = ''
    const statuses = new Map<number, number>()
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const payload = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body, r.raw ? 'latin1' : 'utf8')
        // Header values keep what a raw socket may carry; CR/LF only in the deliberately raw cases.
        const clean = (v: string) => (r.raw ? v : v.replace(/[\r\n]/g, ' '))
        const lines = [`${r.method} ${r.path} HTTP/1.1`]
        if (!r.headers.some(([k]) => k.toLowerCase() === 'host')) lines.push(`Host: 127.0.0.1:${server.port}`)
        for (const [k, v] of r.headers) lines.push(`${k}: ${clean(v)}`)
        lines.push('Connection: close')
        if (payload.length > 0 || r.method === 'POST') lines.push(`Content-Length: ${Math.max(0, payload.length + r.lengthDelta)}`)
        const message = Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), payload])
        const started = Date.now()
        const res = await rawHttp(server.port, message, 30_000)
        sent++
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        if (!(res.status >= 100 && res.status < 500)) {
          failure = `${r.method} ${r.path} → ${res.status} after ${Date.now() - started} ms\n${res.head}\n${res.body.slice(0, 300)}\nserver log tail:\n${server.output().slice(-1500)}`
          return false
        }
        return true
      }),
      { numRuns: 1_000_000, interruptAfterTimeLimit: FUZZ_MS, markInterruptAsFailure: false, endOnFailure: true, ...REPLAY },
    ).catch((error: Error) => {
      throw new Error(`${failure}\n${error.message}`)
    })
    // That it ran: a busy machine answers fewer in the time given.
    assert.ok(sent > 25, `only ${sent} requests were sent`)
    const home = await new Client(server.url).request('GET', '/home', { headers: { cookie: cookies }, cookies: false })
    if (home.status !== 200) {
      // The fuzzer holds the real cookies and CSRF token, so it may send a genuine POST /logout:
      // the only way the session may end. (A new login from this address is throttled by now.)
      assert.ok(/ auth\.logout /.test(server.output()), `the logged-in session ended without a logout; statuses ${JSON.stringify([...statuses])}; server log tail:\n${server.output().slice(-3000)}`)
      assert.equal((await new Client(server.url).get('/login')).status, 200, 'the server survived')
    }
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })).status, 200)
    assert.equal(await snapshotUsers(db), before, 'the users table changed')
    assert.doesNotMatch(server.output(), /http\.unhandled|E_INTERNAL/)
    console.log(`# fuzz: ${sent} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`)
  })
})
