/**
 * Fault injection around the process: the SMTP server down during a password reset, SIGTERM
 * while requests are in flight or a mail is on its way, and SIGKILL in the middle of a stream of
 * token reauths.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { startSmtpPeer } from '../helpers/smtp-peer.js'
import { appDb, getToken, registerUser, sha256 } from '../helpers/security-kit.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const SLOW_ROUTES = `
import { Route, db } from 'trowel'

export const SLOW_ROUTES = [
  Route.post('/slow/@tag', async ({ params }) => {
    console.log(\`slow request \${params.tag} received\`)
    await db().transaction(async (trx) => {
      await trx('slow_writes').insert({ tag: params.tag, part: 1 })
      await new Promise((r) => setTimeout(r, 600))
      await trx('slow_writes').insert({ tag: params.tag, part: 2 })
    })
    return { done: params.tag }
  }).withoutMiddleware('web'),
]
`

describe('mail server down, SIGTERM in flight, SIGKILL mid-reauth', () => {
  let app: TestApp
  let db: Knex
  let closedPort: number

  before(async () => {
    const peer = await startSmtpPeer()
    closedPort = peer.port
    await peer.close()
    app = await newApp({ env: { MAIL_DRIVER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(closedPort), APP_URL: 'http://app.example.test' } })
    applyAuthSteps(app)
    applyApiSteps(app)
    app.write('routes/slow.ts', SLOW_ROUTES)
    app.edit('routes/web.ts', (t) => `import { SLOW_ROUTES } from './slow.js'\n` + t.replace('export const ROUTES = [', 'export const ROUTES = [\n  ...SLOW_ROUTES,'))
    assert.equal(app.craft('migration', 'create_slow_writes', '--create', 'slow_writes').code, 0)
    const { readdirSync } = await import('node:fs')
    const name = readdirSync(`${app.dir}/databases/migrations`).find((f) => f.endsWith('_create_slow_writes.ts'))!
    app.edit(`databases/migrations/${name}`, (t) => t.replace(/(createTable\('slow_writes', \(table\) => \{)/, "$1\n      table.string('tag')\n      table.integer('part')"))
    migrate(app)
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app.cleanup()
  })

  it('SMTP down: the reset request is answered exactly as for an unknown address, and the failure is logged', async () => {
    const server = await app.serve()
    try {
      await registerUser(server.url, 'mailless@example.test')
      const answers = []
      for (const email of ['mailless@example.test', 'nobody@example.test']) {
        const c = new Client(server.url)
        const r = await c.submit('/password_reset', '/password_reset', { email })
        const page = await c.get('/password_reset')
        answers.push({ status: r.status, location: r.location, message: /role="status">([^<]+)</.exec(page.text)?.[1] })
      }
      assert.deepEqual(answers[0], answers[1])
      assert.equal(answers[0]!.status, 302)
      // The JSON form of the request too: the same 200 body for the address whose mail fails.
      const jsonAnswers = []
      for (const email of ['mailless@example.test', 'nobody@example.test']) {
        const c = new Client(server.url)
        await c.get('/password_reset')
        const r = await c.request('POST', '/password_reset', { json: { email }, headers: { accept: 'application/json', 'x-csrf-token': c.csrf() } })
        jsonAnswers.push({ status: r.status, body: r.text })
      }
      assert.equal(jsonAnswers[0]!.status, 200, jsonAnswers[0]!.body)
      assert.deepEqual(jsonAnswers[0], jsonAnswers[1])
      let line: string | undefined
      for (let i = 0; i < 50 && !line; i++) {
        line = server.output().split('\n').find((l) => / auth\.reset_mail_failed /.test(l))
        if (!line) await sleep(100)
      }
      assert.ok(line, `the mail failure was not logged:\n${server.output()}`)
      assert.match(line, /"user_id":/)
      assert.match(line, /^\d{4}-\d\d-\d\dT/)
      assert.doesNotMatch(line, /change_password\/[A-Za-z0-9_-]{20,}/, 'the log carries the reset link')
      assert.equal((await new Client(server.url).get('/login')).status, 200, 'the server still serves')
    } finally {
      await server.stop()
    }
  })

  it('SIGTERM with requests in flight: every one completes with both of its rows, then the process exits 0', async () => {
    const server = await app.serve()
    // SQLite runs the transactions one after another (one connection): three keep the test short.
    const tags = ['a', 'b', 'c']
    const inFlight = tags.map((tag) => new Client(server.url).request('POST', `/slow/${tag}`, { headers: { accept: 'application/json' } }))
    // SIGTERM once the server has all three (each says so as it starts).
    const received = () => tags.every((tag) => server.output().includes(`slow request ${tag} received`))
    for (const until = Date.now() + 20_000; !received() && Date.now() < until; ) await sleep(20)
    assert.ok(received(), 'the three requests reached the server')
    const exit = server.stop('SIGTERM')
    const results = await Promise.all(inFlight)
    for (const [i, r] of results.entries()) {
      assert.equal(r.status, 200, `request ${tags[i]}: ${r.status} ${r.text}`)
      assert.deepEqual(r.json(), { done: tags[i] })
    }
    assert.equal(await exit, 0)
    await assert.rejects(fetch(server.url + '/login'), 'the stopped server still accepts connections')
    const rows = await db('slow_writes').select('tag', 'part').orderBy(['tag', 'part'])
    assert.deepEqual(rows.map((r) => `${r.tag}${r.part}`), tags.flatMap((t) => [`${t}1`, `${t}2`]))
  })

  it('SIGTERM while a reset mail is on its way: the server sends it, then exits 0', async () => {
    // An SMTP peer that takes the reset mail's content but holds its answer until released.
    const peer = await startSmtpPeer({ holdAnswer: (raw) => /^Subject: Reset your password/m.test(raw) })
    const server = await app.serve({ MAIL_PORT: String(peer.port) })
    try {
      await registerUser(server.url, 'inflight@example.test')
      const r = await new Client(server.url).submit('/password_reset', '/password_reset', { email: 'inflight@example.test' })
      assert.equal(r.status, 302, 'answered before the mail is sent')
      await peer.held()
      const exit = server.stop('SIGTERM')
      // A server that does not wait for the mail is gone well within this second; one that waits
      // cannot exit before the answer, however long it takes.
      const early = await Promise.race([exit.then(() => true), sleep(1000).then(() => false)])
      assert.equal(early, false, `the server exited with the reset mail unanswered:\n${server.output()}`)
      peer.release()
      assert.equal(await exit, 0)
      assert.match(server.output(), / auth\.reset_mail_sent /, 'the mail was sent before the exit')
      assert.ok(peer.messages.some((m) => m.to.includes('inflight@example.test') && /^Subject: Reset your password/m.test(m.raw)), 'the peer kept the mail')
    } finally {
      peer.release()
      await server.stop()
      await peer.close()
    }
  })

  it('SIGKILL in the middle of reauths: exactly one token digest stored, the old token or the new one, never NULL', async () => {
    let server = await app.serve()
    await registerUser(server.url, 'crash@example.test')
    let current = await getToken(server.url, 'crash@example.test')
    const received = [current]
    let stop = false
    let broke = ''
    const chain = (async () => {
      while (!stop) {
        try {
          const r = await new Client(server.url).postJson('/api/reauth', { token: current })
          if (r.status !== 200) {
            broke = `${r.status} ${r.text}`
            break
          }
          current = r.json().data
          received.push(current)
        } catch {
          break
        }
      }
    })()
    // Kill once the chain is well under way (a few reauths), at a moment the test does not choose.
    for (let i = 0; i < 200 && received.length < 4 && !broke; i++) await sleep(25)
    assert.equal(broke, '', 'a reauth failed before the kill')
    await sleep(Math.floor(Math.random() * 50))
    await server.stop('SIGKILL')
    stop = true
    await chain
    assert.ok(received.length > 2, `only ${received.length} reauths before the kill`)
    const stored = (await db('users').where('email', 'crash@example.test').first()).api_token as string | null
    assert.ok(stored, 'the token column is NULL after the crash: neither token is valid')
    server = await app.serve()
    try {
      const last = received.at(-1)!
      const valid = []
      for (const t of received.slice(-3)) {
        if (sha256(t) === stored) valid.push(t)
      }
      if (stored === sha256(last)) {
        assert.equal((await new Client(server.url).postJson('/api/reauth', { token: last })).status, 200, 'the stored token must reauth')
      } else {
        // The new digest was committed but its answer died with the process: the old token is
        // refused, so at most one of the two is ever usable.
        assert.equal((await new Client(server.url).postJson('/api/reauth', { token: last })).status, 401)
      }
      assert.ok(valid.length <= 1, 'two tokens share one digest')
      for (const old of received.slice(0, -1)) assert.notEqual(sha256(old), stored, 'an already replaced token became current again')
    } finally {
      await server.stop()
    }
  })
})
