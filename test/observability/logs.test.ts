/**
 * Black-box: structured logs. A generated app with web authentication served with
 * `LOG_FORMAT=json` writes one JSON object per log line; every auth line carries the event's
 * name, `user_id`, `ip` and a `request_id` that differs between requests. `X-Request-Id` is
 * believed only behind a trusted proxy (`TRUST_PROXY`), and only when it is a plain short id.
 * The JWT guard's own lines (`auth.token_rejected`) carry the request id too. No line ever holds
 * a password.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'

const PASSWORD = 'correct horse battery staple'
const WRONG = 'not the right passphrase at all'
const EMAIL = 'ada@example.test'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const TEXT_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARN|ERROR) /

interface LogLine {
  time: string
  level: string
  event: string
  [field: string]: unknown
}

/** Every output line that looks like a JSON object, parsed (a line that does not parse fails the test). */
function jsonLines(server: Server): LogLine[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine
      } catch {
        throw new Error(`a log line is not JSON: ${line}`)
      }
    })
}

const linesOf = (server: Server, event: string) => jsonLines(server).filter((l) => l.event === event)

/** Runs `act`, then waits (the log travels through a pipe) for the new `event` line it wrote. */
async function logged(server: Server, event: string, act: () => Promise<unknown>): Promise<LogLine> {
  const before = linesOf(server, event).length
  await act()
  for (let i = 0; i < 200; i++) {
    const lines = linesOf(server, event)
    if (lines.length > before) {
      assert.equal(lines.length, before + 1, `one ${event} line per request`)
      return lines[before]!
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`no new ${event} line; output:\n${server.output()}`)
}

let unknown = 0

/** A failed login for `email` (else a new unknown address, so the throttle never answers) from a fresh client sending `headers`. */
function failLogin(server: Server, email = `nobody${++unknown}@example.test`, headers: Record<string, string> = {}) {
  const client = new Client(server.url)
  client.extraHeaders = headers
  return logged(server, 'auth.login_failed', async () => {
    const r = await client.submit('/login', '/login', { email, password: WRONG })
    assert.equal(r.status, 302)
  })
}

describe('structured logs (LOG_FORMAT=json) and request ids', () => {
  let app: TestApp
  let server: Server
  let proxied: Server

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    migrate(app)
    server = await app.serve({ LOG_FORMAT: 'json' })
    proxied = await app.serve({ LOG_FORMAT: 'json', TRUST_PROXY: '1' })
  })
  after(async () => {
    await app?.cleanup()
  })

  let registered: LogLine
  let failed: LogLine
  let succeeded: LogLine

  it('a registration, a failed and a successful login each write one JSON line with event, user_id, ip and request_id', async () => {
    const client = new Client(server.url)
    registered = await logged(server, 'auth.registered', async () => {
      const r = await client.submit('/register', '/register', { name: 'Ada Lovelace', email: EMAIL, password: PASSWORD, password_confirmation: PASSWORD })
      assert.equal(r.location, '/home')
    })
    failed = await failLogin(server, EMAIL)
    const other = new Client(server.url)
    succeeded = await logged(server, 'auth.login', async () => {
      const r = await other.submit('/login', '/login', { email: EMAIL, password: PASSWORD })
      assert.equal(r.location, '/home')
    })

    for (const [line, level, name] of [[registered, 'info', 'auth:registered'], [failed, 'info', 'auth:login_failed'], [succeeded, 'info', 'auth:login_succeeded']] as const) {
      assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, JSON.stringify(line))
      assert.equal(line.level, level)
      assert.equal(line.field_event, name, 'the auth event name, beside the line name')
      assert.equal(line.guard, 'web')
      assert.match(String(line.ip), /127\.0\.0\.1/)
      assert.match(String(line.request_id), UUID, JSON.stringify(line))
      assert.ok('user_id' in line, JSON.stringify(line))
    }
    // A wrong password for an existing account names the account, as the successful login does.
    assert.ok(registered.user_id !== null && registered.user_id !== undefined)
    assert.equal(failed.user_id, registered.user_id)
    assert.equal(succeeded.user_id, registered.user_id)
  })

  it('every request has its own request id', async () => {
    const again = await failLogin(server)
    assert.equal(again.user_id, null, 'an unknown address names no account')
    const ids = [registered.request_id, failed.request_id, succeeded.request_id, again.request_id]
    assert.equal(new Set(ids).size, ids.length, ids.join(' '))
  })

  it('without TRUST_PROXY, X-Request-Id is ignored', async () => {
    const line = await failLogin(server, undefined, { 'x-request-id': 'lb-7f3a.1:abc_def' })
    assert.match(String(line.request_id), UUID)
    assert.notEqual(line.request_id, 'lb-7f3a.1:abc_def')
  })

  it('with TRUST_PROXY, a valid X-Request-Id is the request id; an invalid one is replaced', async () => {
    for (const id of ['lb-7f3a.1:abc_def', 'A', 'x'.repeat(128), '0f8fad5b-d9cb-469f-a165-70867728950e']) {
      const line = await failLogin(proxied, undefined, { 'x-request-id': id })
      assert.equal(line.request_id, id)
    }
    for (const id of ['x'.repeat(129), 'two words', 'id"},{"forged":true', 'a/b', '<script>', '']) {
      const line = await failLogin(proxied, undefined, { 'x-request-id': id })
      assert.match(String(line.request_id), UUID, `${JSON.stringify(id)} was kept`)
      assert.equal(line.forged, undefined)
    }
    const none = await failLogin(proxied)
    assert.match(String(none.request_id), UUID)
  })

  it('a refused Bearer token is logged with its request id', async () => {
    const missing = await logged(proxied, 'auth.token_rejected', async () => {
      assert.equal((await new Client(proxied.url).get('/api/me', { 'x-request-id': 'edge-42' })).status, 401)
    })
    assert.equal(missing.code, 'E_TOKEN_MISSING')
    assert.equal(missing.request_id, 'edge-42')
    assert.match(String(missing.ip), /127\.0\.0\.1/)
    const invalid = await logged(server, 'auth.token_rejected', async () => {
      assert.equal((await new Client(server.url).get('/api/me', { authorization: 'Bearer not.a.token', 'x-request-id': 'edge-43' })).status, 401)
    })
    assert.equal(invalid.code, 'E_TOKEN_INVALID')
    assert.match(String(invalid.request_id), UUID)
  })

  it('every log line is JSON, and no line holds a password', async () => {
    for (const s of [server, proxied]) {
      const out = s.output()
      assert.ok(jsonLines(s).length > 0)
      for (const line of out.split('\n')) assert.doesNotMatch(line, TEXT_LINE, 'a text-format log line')
      for (const secret of [PASSWORD, WRONG]) assert.ok(!out.includes(secret), `the log holds a password: ${secret}`)
    }
  })
})
