import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { Application } from '../foundation/application.js'
import { Logger } from '../support/logger.js'
import { fakeContext } from '../testing/fake-context.js'
import { eventBase } from '../auth/events.js'
import { collectDefaultMetrics } from 'prom-client'
import { AppMetrics, UNMATCHED_ROUTE } from './metrics.js'
import { gcMetricsWanted, processCollectors } from './process-metrics.js'
import { bearerChecker, metricsToken } from './metrics-token.js'
import { HealthCheck } from './health.js'

const quietApp = () => new Application(tmpdir(), { log: new Logger({ sink: () => {} }) })

/** The value of the one sample of `name` whose labels include `labels` (undefined when none). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))
    if (wanted) return Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return undefined
}

describe('AppMetrics', () => {
  it('registers every metric in a registry of its own: two apps in one process do not collide', async () => {
    const a = new AppMetrics()
    const b = new AppMetrics()
    a.tokenReissues.inc()
    const textA = await a.metrics()
    const textB = await b.metrics()
    for (const name of [
      'trowel_http_requests_total',
      'trowel_http_request_duration_seconds',
      'trowel_auth_logins_total',
      'trowel_auth_throttled_total',
      'trowel_auth_token_reissues_total',
      'trowel_auth_token_reuse_detected_total',
      'trowel_hash_queue_length',
      'trowel_process_cpu_user_seconds_total',
      'trowel_nodejs_eventloop_lag_seconds',
      'trowel_process_resident_memory_bytes',
    ]) {
      assert.match(textA, new RegExp(`^# TYPE ${name} `, 'm'), name)
    }
    assert.equal(sample(textA, 'trowel_auth_token_reissues_total'), 1)
    assert.equal(sample(textB, 'trowel_auth_token_reissues_total'), 0)
    assert.equal(sample(textA, 'trowel_auth_token_reuse_detected_total'), 0)
    assert.match(a.contentType, /^text\/plain; version=0\.0\.4/)
  })

  it('leaves the garbage-collection histogram out unless asked for (METRICS_GC=true): it runs a callback after every collection', async () => {
    const plain = await new AppMetrics({ gcMetrics: false }).metrics()
    assert.doesNotMatch(plain, /^# TYPE trowel_nodejs_gc_duration_seconds /m)
    assert.match(plain, /^# TYPE trowel_nodejs_heap_space_size_used_bytes /m)
    const withGc = await new AppMetrics({ gcMetrics: true }).metrics()
    assert.match(withGc, /^# TYPE trowel_nodejs_gc_duration_seconds histogram/m)
    // Every other default collector of prom-client is registered, including ones a later version adds.
    const list = (collectDefaultMetrics as unknown as { metricsList: string[] }).metricsList
    assert.ok(list.length >= 10 && list.includes('gc'))
    assert.deepEqual(processCollectors(), list.filter((name) => name !== 'gc'))
    assert.deepEqual(processCollectors({ gc: true }), list)
    assert.equal(gcMetricsWanted({}), false)
    assert.equal(gcMetricsWanted({ METRICS_GC: 'true' }), true)
    assert.equal(gcMetricsWanted({ METRICS_GC: ' 1 ' }), true)
    assert.equal(gcMetricsWanted({ METRICS_GC: 'false' }), false)
  })

  it('labels requests by route pattern, never by path; unmatched requests are "(unmatched)"', async () => {
    const app = quietApp()
    const metrics = new AppMetrics({ defaultMetrics: false })
    const token = 'a'.repeat(40)
    const matched = fakeContext(app, { method: 'GET', url: `/change_password/${token}` })
    matched.route = { path: '/change_password/@token', methods: ['GET'], json: false }
    metrics.observeRequest(matched, process.hrtime.bigint() - 2_000_000n)
    const unmatched = fakeContext(app, { method: 'POST', url: `/nowhere/${token}` })
    unmatched.route = null
    unmatched.response.status(404)
    metrics.observeRequest(unmatched, process.hrtime.bigint())
    const text = await metrics.metrics()
    assert.equal(sample(text, 'trowel_http_requests_total', { method: 'GET', route: '/change_password/@token', status: '200' }), 1)
    assert.equal(sample(text, 'trowel_http_requests_total', { method: 'POST', route: UNMATCHED_ROUTE, status: '404' }), 1)
    assert.equal(sample(text, 'trowel_http_request_duration_seconds_count', { route: '/change_password/@token' }), 1)
    const seconds = sample(text, 'trowel_http_request_duration_seconds_sum', { route: '/change_password/@token' })!
    assert.ok(seconds >= 0.002 && seconds < 1, String(seconds))
    assert.equal(sample(text, 'trowel_http_request_duration_seconds_bucket', { route: '/change_password/@token', le: '0.001' }), 0)
    // The request took 2 ms plus however long this machine took to record it: its bucket follows the sum.
    assert.equal(sample(text, 'trowel_http_request_duration_seconds_bucket', { route: '/change_password/@token', le: '0.005' }), seconds <= 0.005 ? 1 : 0)
    assert.equal(sample(text, 'trowel_http_request_duration_seconds_bucket', { route: '/change_password/@token', le: '+Inf' }), 1)
    assert.ok(!text.includes(token), 'a path parameter reached the metrics')
  })

  it('counts the auth events of app.events, by guard and result', async () => {
    const app = quietApp()
    const metrics = new AppMetrics({ defaultMetrics: false })
    metrics.initGuards(['web'])
    const stop = metrics.listen(app.events)
    const base = (guard: string) => eventBase(fakeContext(app), guard, null)
    app.events.emit('auth:login_failed', base('web'))
    app.events.emit('auth:login_failed', base('jwt'))
    app.events.emit('auth:login_failed', base('web'))
    app.events.emit('auth:login_succeeded', { ...base('web'), user: { getKey: () => 1 } as never })
    app.events.emit('auth:throttled', { ...base('web'), retryAfter: 30 })
    app.events.emit('auth:token_reissued', { ...base('jwt'), userId: '1' })
    let text = await metrics.metrics()
    assert.equal(sample(text, 'trowel_auth_logins_total', { guard: 'web', result: 'failed' }), 2)
    assert.equal(sample(text, 'trowel_auth_logins_total', { guard: 'jwt', result: 'failed' }), 1)
    assert.equal(sample(text, 'trowel_auth_logins_total', { guard: 'web', result: 'succeeded' }), 1)
    assert.equal(sample(text, 'trowel_auth_logins_total', { guard: 'web', result: 'throttled' }), 1)
    assert.equal(sample(text, 'trowel_auth_throttled_total', { guard: 'web' }), 1)
    assert.equal(sample(text, 'trowel_auth_token_reissues_total'), 1)
    // The reuse event does not exist yet; the counter moves as soon as something emits it.
    ;(app.events.emit as (name: string, payload: unknown) => void)('auth:token_reuse_detected', base('jwt'))
    text = await metrics.metrics()
    assert.equal(sample(text, 'trowel_auth_token_reuse_detected_total'), 1)
    stop()
    app.events.emit('auth:login_failed', base('web'))
    assert.equal(sample(await metrics.metrics(), 'trowel_auth_logins_total', { guard: 'web', result: 'failed' }), 2)
  })

  it('counts sign-ins by method, sign-in links mailed and refused sign-in codes', async () => {
    const app = quietApp()
    const metrics = new AppMetrics({ defaultMetrics: false })
    const stop = metrics.listen(app.events)
    const base = (guard: string) => eventBase(fakeContext(app), guard, null)
    const user = { getKey: () => 1 } as never
    for (const method of ['password', 'email_code', 'email_code', 'remember'] as const) app.events.emit('auth:login_succeeded', { ...base('web'), user, method })
    app.events.emit('auth:login_succeeded', { ...base('jwt'), user, method: 'email_code' })
    app.events.emit('auth:login_link_sent', base('web'))
    app.events.emit('auth:login_code_failed', base('web'))
    app.events.emit('auth:login_code_failed', base('web'))
    const text = await metrics.metrics()
    assert.equal(sample(text, 'trowel_auth_sign_ins_total', { guard: 'web', method: 'email_code' }), 2)
    assert.equal(sample(text, 'trowel_auth_sign_ins_total', { guard: 'web', method: 'password' }), 1)
    assert.equal(sample(text, 'trowel_auth_sign_ins_total', { guard: 'web', method: 'remember' }), 1)
    assert.equal(sample(text, 'trowel_auth_sign_ins_total', { guard: 'jwt', method: 'email_code' }), 1)
    assert.equal(sample(text, 'trowel_auth_logins_total', { guard: 'web', result: 'succeeded' }), 4)
    assert.equal(sample(text, 'trowel_auth_login_links_sent_total'), 1)
    assert.equal(sample(text, 'trowel_auth_login_code_failures_total'), 2)
    stop()
  })

  it('initGuards starts the login series at 0', async () => {
    const metrics = new AppMetrics({ defaultMetrics: false })
    metrics.initGuards(['web', 'jwt'])
    const text = await metrics.metrics()
    for (const guard of ['web', 'jwt']) {
      for (const result of ['succeeded', 'failed', 'throttled']) assert.equal(sample(text, 'trowel_auth_logins_total', { guard, result }), 0)
      assert.equal(sample(text, 'trowel_auth_throttled_total', { guard }), 0)
    }
  })

  it('reads the hash queue at scrape time; no sample while the hasher does not expose it', async () => {
    let queue: number | undefined
    const metrics = new AppMetrics({ defaultMetrics: false, hashQueueLength: () => queue })
    let text = await metrics.metrics()
    assert.match(text, /^# TYPE trowel_hash_queue_length gauge$/m)
    assert.equal(sample(text, 'trowel_hash_queue_length'), undefined)
    queue = 3
    assert.equal(sample(await metrics.metrics(), 'trowel_hash_queue_length'), 3)
    queue = 0
    text = await metrics.metrics()
    assert.equal(sample(text, 'trowel_hash_queue_length'), 0)
    assert.ok(!/Nan|NaN/.test(text))
  })
})

describe('METRICS_TOKEN', () => {
  it('is off when unset or blank', () => {
    assert.equal(metricsToken({}), undefined)
    assert.equal(metricsToken({ METRICS_TOKEN: '  ' }), undefined)
    assert.equal(metricsToken({ METRICS_TOKEN: ' s3cret ' }), 's3cret')
  })

  it('accepts a token with spaces inside', () => {
    assert.equal(bearerChecker('two words')('Bearer two words'), true)
    assert.equal(bearerChecker('two words')('Bearer two  words'), false)
  })

  it('accepts exactly "Bearer <token>"', () => {
    const ok = bearerChecker('s3cret-token')
    assert.equal(ok('Bearer s3cret-token'), true)
    assert.equal(ok('bearer s3cret-token'), true, 'the scheme is case-insensitive')
    for (const header of [undefined, '', 'Bearer', 'Bearer ', 's3cret-token', 'Basic s3cret-token', 'Bearer s3cret-toke', 'Bearer s3cret-tokenX', 'Bearer S3CRET-TOKEN', 'Bearer s3cret-token extra']) {
      assert.equal(ok(header), false, String(header))
    }
  })
})

describe('HealthCheck', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

  it('answers true while the probe resolves, false when it rejects, and recovers', async () => {
    let up = true
    const check = new HealthCheck(async () => {
      if (!up) throw new Error('down')
    })
    assert.equal(await check.check(), true)
    up = false
    assert.equal(await check.check(), false)
    up = true
    assert.equal(await check.check(), true)
  })

  it('answers false when the probe outlasts the timeout', async () => {
    // A probe that never settles: only the timeout can answer. (Its timer does not keep the
    // process alive; this interval does, meanwhile.)
    const check = new HealthCheck(() => new Promise<void>(() => {}), { timeoutMs: 50 })
    const alive = setInterval(() => {}, 1000)
    try {
      assert.equal(await check.check(), false)
    } finally {
      clearInterval(alive)
    }
  })

  it('runs one probe at a time: concurrent checks share it', async () => {
    let probes = 0
    const check = new HealthCheck(async () => {
      probes++
      await sleep(30)
    })
    const answers = await Promise.all(Array.from({ length: 10 }, () => check.check()))
    assert.deepEqual(answers, Array(10).fill(true))
    assert.equal(probes, 1)
    await check.check()
    assert.equal(probes, 2, 'an answer is not cached')
  })

  it('tries a failed probe once more (a stale pooled connection), and logs changes only', async () => {
    const lines: string[] = []
    let failures = 1
    const check = new HealthCheck(
      async () => {
        if (failures-- > 0) throw new Error('Connection terminated unexpectedly')
      },
      { log: new Logger({ sink: (line) => lines.push(line) }) },
    )
    assert.equal(await check.check(), true)
    failures = 10
    assert.equal(await check.check(), false)
    assert.equal(await check.check(), false)
    failures = 0
    assert.equal(await check.check(), true)
    assert.equal(lines.filter((l) => l.includes('health.database_unavailable')).length, 1, lines.join('\n'))
    assert.equal(lines.filter((l) => l.includes('health.database_available')).length, 1, lines.join('\n'))
  })
})
