/**
 * Black-box: GET /metrics of a generated app with web auth, served by `craft serve`.
 * Off (404) without METRICS_TOKEN; with it, 401 for a missing or wrong token, and for the right
 * one a scrape that a strict Prometheus text parser accepts, whose counters move with the
 * requests made, labelled by route pattern (a reset token in the path never reaches it); under
 * `--workers 2` any scrape sums both workers.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { parsePrometheusText, sumOf, type Family } from './prometheus-text.js'

const TOKEN = randomBytes(32).toString('hex')
/** TOKEN with its last character changed (never equal to TOKEN, whatever that character is). */
const NEAR_MISS = TOKEN.slice(0, -1) + (TOKEN.endsWith('0') ? '1' : '0')

async function scrape(server: Server, token = TOKEN): Promise<{ text: string; families: Map<string, Family> }> {
  const r = await new Client(server.url).get('/metrics', { authorization: `Bearer ${token}` })
  assert.equal(r.status, 200, r.text)
  assert.equal(r.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
  return { text: r.text, families: parsePrometheusText(r.text) }
}

describe('GET /metrics, black-box', () => {
  let app: TestApp

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    migrate(app)
  })
  after(() => app.cleanup())

  it('does not exist without METRICS_TOKEN: 404 with or without a token', async () => {
    const server = await app.serve()
    try {
      assert.equal((await new Client(server.url).get('/metrics')).status, 404)
      assert.equal((await new Client(server.url).get('/metrics', { authorization: `Bearer ${TOKEN}` })).status, 404)
      assert.equal((await new Client(server.url).get('/health')).status, 200, '/health is always on')
    } finally {
      await server.stop()
    }
  })

  describe('with METRICS_TOKEN', () => {
    let server: Server
    before(async () => {
      server = await app.serve({ METRICS_TOKEN: TOKEN })
    })
    after(() => server.stop())

    it('refuses a missing or wrong token: 401 E_UNAUTHORIZED, WWW-Authenticate: Bearer realm="metrics"', async () => {
      for (const authorization of [undefined, `Bearer ${NEAR_MISS}`, `Bearer ${TOKEN}0`, `Basic ${TOKEN}`, TOKEN, 'Bearer ']) {
        const r = await new Client(server.url).get('/metrics', authorization === undefined ? {} : { authorization })
        assert.equal(r.status, 401, `${authorization}: ${r.status}`)
        assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="metrics"')
        assert.match(r.headers.get('content-type') ?? '', /^application\/json/)
        const body = r.json()
        assert.equal(body.code, 'E_UNAUTHORIZED')
        assert.equal(typeof body.message, 'string')
        assert.deepEqual(r.setCookies, [])
      }
    })

    it('answers the Prometheus text format with every metric', async () => {
      const { families } = await scrape(server)
      const expected: Record<string, string> = {
        trowel_http_requests_total: 'counter',
        trowel_http_request_duration_seconds: 'histogram',
        trowel_auth_logins_total: 'counter',
        trowel_auth_throttled_total: 'counter',
        trowel_auth_token_reissues_total: 'counter',
        trowel_auth_token_reuse_detected_total: 'counter',
        trowel_hash_queue_length: 'gauge',
        trowel_process_cpu_seconds_total: 'counter',
        trowel_process_resident_memory_bytes: 'gauge',
        trowel_nodejs_eventloop_lag_seconds: 'gauge',
        trowel_nodejs_heap_size_used_bytes: 'gauge',
      }
      for (const [name, type] of Object.entries(expected)) assert.equal(families.get(name)?.type, type, name)
      assert.equal(sumOf(families, 'trowel_auth_token_reuse_detected_total'), 0)
      // The web guard's series exist before the first login.
      assert.equal(families.get('trowel_auth_logins_total')!.samples.some((s) => s.labels.guard === 'web' && s.labels.result === 'failed'), true)
    })

    it('a failed login moves the failed-logins counter by one', async () => {
      const failed = { guard: 'web', result: 'failed' }
      const before = sumOf((await scrape(server)).families, 'trowel_auth_logins_total', failed)
      const r = await new Client(server.url).submit('/login', '/login', { email: 'nobody@example.test', password: 'not the password' })
      assert.equal(r.location, '/login')
      const { families } = await scrape(server)
      assert.equal(sumOf(families, 'trowel_auth_logins_total', failed), before + 1)
      assert.ok(sumOf(families, 'trowel_http_requests_total', { method: 'POST', route: '/login', status: '302' }) >= 1)
      assert.ok(sumOf(families, 'trowel_http_request_duration_seconds_count', { method: 'POST', route: '/login' }) >= 1)
    })

    it('labels requests by route pattern: a reset token in the path never reaches the scrape', async () => {
      const tokens = [randomBytes(20).toString('hex'), randomBytes(20).toString('hex')]
      for (const token of tokens) await new Client(server.url).get(`/change_password/${token}`)
      await new Client(server.url).get(`/no/such/page/${tokens[0]}`)
      const { text, families } = await scrape(server)
      assert.ok(sumOf(families, 'trowel_http_requests_total', { method: 'GET', route: '/change_password/@token' }) >= 2)
      assert.ok(sumOf(families, 'trowel_http_requests_total', { method: 'GET', route: '(unmatched)', status: '404' }) >= 1)
      for (const token of tokens) assert.ok(!text.includes(token), 'a reset token reached the scrape')
      const routes = new Set(families.get('trowel_http_requests_total')!.samples.map((s) => s.labels.route))
      for (const route of routes) assert.ok(route === '(unmatched)' || route!.startsWith('/'), route)
    })
  })

  it('under --workers 2 one scrape sums both workers', async () => {
    const cluster = await app.serve({ METRICS_TOKEN: TOKEN }, ['--workers', '2'])
    try {
      assert.match(cluster.output(), /with 2 workers/)
      const made = 30
      for (let i = 0; i < made; i++) assert.equal((await new Client(cluster.url).get('/login')).status, 200)
      // Connections are spread over the workers; every scrape, whichever answers it, sees them all.
      for (let i = 0; i < 4; i++) {
        const { families } = await scrape(cluster)
        const seen = sumOf(families, 'trowel_http_requests_total', { method: 'GET', route: '/login', status: '200' })
        assert.ok(seen >= made, `scrape ${i + 1} saw ${seen} of the ${made} requests`)
        assert.equal(families.get('trowel_http_request_duration_seconds')?.type, 'histogram')
      }
    } finally {
      await cluster.stop()
    }
  })
})
