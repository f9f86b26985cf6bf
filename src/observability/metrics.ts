/**
 * @module observability/metrics
 * `AppMetrics`: one application's Prometheus metrics, in a registry of its own (never
 * prom-client's global one, so several apps in one process do not collide):
 *
 * - `trowel_http_requests_total{method,route,status}` and
 *   `trowel_http_request_duration_seconds{method,route,status}`, fed by the request handler's
 *   response hook (`observeRequest`). `route` is the route's pattern (`/change_password/@token`),
 *   never the path, which may hold a secret; a request no route matched is `(unmatched)`. The hook
 *   runs on every request, so it only adds to plain numbers (`RequestSeries`, found through three
 *   small maps, no string built, no object allocated once a series exists); prom-client reads them
 *   when scraped. (prom-client's own `inc`/`observe` hash the label set on each call: about 1 µs
 *   a request against about 0.05 µs here, plus the two clock reads.)
 * - `trowel_auth_logins_total{guard,result}` (`succeeded`, `failed`, `throttled`),
 *   `trowel_auth_throttled_total{guard}`, `trowel_auth_token_reissues_total`,
 *   `trowel_auth_token_reuse_detected_total`, fed by listeners on `app.events` (`listen`);
 *   `trowel_auth_sign_ins_total{guard,method}` (completed logins by how they were proven: the
 *   login flow's `method`), and, for sign-in by e-mail, `trowel_auth_login_links_sent_total` and
 *   `trowel_auth_login_code_failures_total`.
 * - `trowel_hash_queue_length`: password-hashing jobs waiting for a thread, read at scrape time
 *   from what the hasher exposes (no sample while it exposes nothing: absent, not a made-up 0);
 *   `trowel_hash_wait_seconds`: how long each hashing job waited for a thread, registered by
 *   `observeHashWaits` when the hasher reports waits.
 * - prom-client's process metrics (CPU, memory, heap, event loop lag, handles), prefixed `trowel_`;
 *   its GC histogram only with `METRICS_GC=true` (observability/process-metrics).
 */
import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client'
import { collectProcessMetrics, gcMetricsWanted } from './process-metrics.js'
import type { HttpContext } from '../http/context.js'
import type { Emitter } from '../events/emitter.js'

export const METRIC_PREFIX = 'trowel_'
/** The `route` label of a request no route matched (404, 405). */
export const UNMATCHED_ROUTE = '(unmatched)'
/** Request duration buckets (seconds): from a 1 ms JSON route to a 10 s stall. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
export const LOGIN_RESULTS = ['succeeded', 'failed', 'throttled'] as const
/** Hashing wait buckets (seconds): a free thread, one or a few jobs ahead, up to the 2 s default limit and beyond. */
export const HASH_WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5]

type RequestLabels = 'method' | 'route' | 'status'

/** One (method, route, status): requests answered, their total duration, and how many fell in each bucket. */
export interface RequestSeries {
  labels: { method: string; route: string; status: string }
  count: number
  sum: number
  /** Per bucket, not cumulative: `buckets[i]` counts durations in (`DURATION_BUCKETS[i-1]`, `DURATION_BUCKETS[i]`]; the last slot, above the largest bound. */
  buckets: Float64Array
}

export interface AppMetricsOptions {
  /** Hashing jobs waiting, or undefined when the hasher does not say (the gauge then has no sample). */
  hashQueueLength?: () => number | undefined
  /** prom-client's process metrics (default true). */
  defaultMetrics?: boolean
  /** Its garbage-collection histogram too (default: `METRICS_GC`, off). */
  gcMetrics?: boolean
}

export class AppMetrics {
  readonly registry = new Registry()
  readonly httpRequests: Counter<RequestLabels>
  readonly httpDuration: DurationHistogram
  /** route pattern → status → method → series. */
  readonly #requests = new Map<string, Map<number, Map<string, RequestSeries>>>()
  readonly #series: RequestSeries[] = []
  readonly logins: Counter<'guard' | 'result'>
  readonly throttled: Counter<'guard'>
  readonly tokenReissues: Counter
  readonly tokenReuseDetected: Counter
  readonly signIns: Counter<'guard' | 'method'>
  readonly loginLinksSent: Counter
  readonly loginCodeFailures: Counter
  readonly hashQueueLength: ReadGauge
  /** Registered by `observeHashWaits`. */
  hashWait: Histogram | undefined

  constructor(options: AppMetricsOptions = {}) {
    const registers = [this.registry]
    const series = this.#series
    this.httpRequests = new Counter({
      name: `${METRIC_PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect() {
        this.reset()
        for (const s of series) this.inc(s.labels, s.count)
      },
    })
    this.httpDuration = new DurationHistogram(
      `${METRIC_PREFIX}http_request_duration_seconds`,
      'Time from the request reaching the app to its response being handed to the socket, by method, route pattern and status.',
      series,
    )
    this.registry.registerMetric(this.httpDuration as unknown as Metric)
    /** A counter in this app's registry, named `trowel_<name>`. */
    const counter = <L extends string = string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> =>
      new Counter<L>({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers })
    this.logins = counter('auth_logins_total', 'Login attempts by guard and result (succeeded, failed, throttled).', ['guard', 'result'])
    this.throttled = counter('auth_throttled_total', 'Login attempts refused by the throttle, by guard.', ['guard'])
    this.tokenReissues = counter('auth_token_reissues_total', 'API tokens reissued.')
    this.tokenReuseDetected = counter('auth_token_reuse_detected_total', 'Replaced API tokens presented again (token reuse).')
    this.signIns = counter('auth_sign_ins_total', 'Completed logins by guard and method (password, passkey, social, email_link, email_code, remember, id).', ['guard', 'method'])
    this.loginLinksSent = counter('auth_login_links_sent_total', 'Sign-in links and codes mailed (sign-in by e-mail).')
    this.loginCodeFailures = counter('auth_login_code_failures_total', 'Sign-in codes refused as wrong, used up or expired (sign-in by e-mail).')
    this.hashQueueLength = new ReadGauge({
      name: `${METRIC_PREFIX}hash_queue_length`,
      help: 'Password-hashing jobs waiting for a hashing thread (no sample while the hasher does not expose it).',
      registers,
      read: options.hashQueueLength ?? (() => undefined),
    })
    if (options.defaultMetrics !== false) collectProcessMetrics(this.registry, { prefix: METRIC_PREFIX, gc: options.gcMetrics ?? gcMetricsWanted() })
  }

  /**
   * The request handler's response hook (`http.response.hooks`): counts the request and observes
   * its duration under the route's pattern.
   */
  readonly observeRequest = (ctx: HttpContext, startedAtNs: bigint): void => {
    const seconds = Number(process.hrtime.bigint() - startedAtNs) / 1e9
    const route = ctx.route?.path ?? UNMATCHED_ROUTE
    let byStatus = this.#requests.get(route)
    if (byStatus === undefined) this.#requests.set(route, (byStatus = new Map()))
    const status = ctx.response.statusCode
    let byMethod = byStatus.get(status)
    if (byMethod === undefined) byStatus.set(status, (byMethod = new Map()))
    const method = ctx.request.method
    let series = byMethod.get(method)
    if (series === undefined) {
      series = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Float64Array(DURATION_BUCKETS.length + 1) }
      byMethod.set(method, series)
      this.#series.push(series)
    }
    series.count++
    series.sum += seconds
    let i = 0
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++
    series.buckets[i]!++
  }

  /**
   * Adds `trowel_hash_wait_seconds` and returns the function to give the hasher (called with each
   * job's wait in milliseconds when a thread takes it). Once per instance.
   */
  observeHashWaits(): (ms: number) => void {
    const histogram = (this.hashWait ??= new Histogram({
      name: `${METRIC_PREFIX}hash_wait_seconds`,
      help: 'How long each password-hashing job waited for a hashing thread.',
      buckets: HASH_WAIT_BUCKETS,
      registers: [this.registry],
    }))
    return (ms) => histogram.observe(ms / 1000)
  }

  /** Counts the auth events of `events`; returns a function that stops listening. */
  listen(events: Emitter): () => void {
    const off = [
      events.on('auth:login_succeeded', (e) => {
        this.logins.inc({ guard: e.guard, result: 'succeeded' })
        this.signIns.inc({ guard: e.guard, method: e.method ?? 'password' })
      }),
      events.on('auth:login_link_sent', () => this.loginLinksSent.inc()),
      events.on('auth:login_code_failed', () => this.loginCodeFailures.inc()),
      events.on('auth:login_failed', (e) => this.logins.inc({ guard: e.guard, result: 'failed' })),
      events.on('auth:throttled', (e) => {
        this.logins.inc({ guard: e.guard, result: 'throttled' })
        this.throttled.inc({ guard: e.guard })
      }),
      events.on('auth:token_reissued', () => this.tokenReissues.inc()),
      // Not emitted yet: the counter stays at 0 until the JWT guard reports token reuse.
      (events.on as (name: string, listener: () => void) => () => void)('auth:token_reuse_detected', () => this.tokenReuseDetected.inc()),
    ]
    return () => off.forEach((stop) => stop())
  }

  /** Starts the login series of `guards` at 0, so a rate over them has a first sample. */
  initGuards(guards: Iterable<string>): void {
    for (const guard of guards) {
      for (const result of LOGIN_RESULTS) this.logins.inc({ guard, result }, 0)
      this.throttled.inc({ guard }, 0)
    }
  }

  /** This process's metrics in the Prometheus text format. */
  metrics(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}

/**
 * A gauge read at scrape time by `read`; while `read` answers undefined the gauge has no sample
 * (its HELP and TYPE lines only), which Prometheus treats as absent rather than as a value.
 */
export class ReadGauge extends Gauge {
  readonly #state: { known: boolean }

  constructor(config: { name: string; help: string; registers: Registry[]; read: () => number | undefined }) {
    const { read, ...rest } = config
    const state = { known: false }
    super({
      ...rest,
      collect() {
        const n = read()
        state.known = typeof n === 'number' && Number.isFinite(n)
        this.set(state.known ? n! : 0)
      },
    })
    this.#state = state
  }

  override async get(): ReturnType<Gauge['get']> {
    const metric = await super.get()
    return this.#state.known ? metric : { ...metric, values: [] }
  }
}

/**
 * `trowel_http_request_duration_seconds`: a histogram prom-client reads (`get()`, the shape of its
 * own metrics: cumulative `_bucket` values with `le`, then `_sum` and `_count`) from the series
 * the response hook fills, registered with `registry.registerMetric`. Summed across workers.
 */
export class DurationHistogram {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly labelNames = ['method', 'route', 'status']
  readonly name: string
  readonly help: string
  readonly #series: RequestSeries[]

  constructor(name: string, help: string, series: RequestSeries[]) {
    this.name = name
    this.help = help
    this.#series = series
  }

  async get() {
    const bucket = `${this.name}_bucket`
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = []
    for (const s of this.#series) {
      let cumulative = 0
      for (let i = 0; i < DURATION_BUCKETS.length; i++) {
        cumulative += s.buckets[i]!
        values.push({ labels: { ...s.labels, le: DURATION_BUCKETS[i]! }, value: cumulative, metricName: bucket })
      }
      cumulative += s.buckets[DURATION_BUCKETS.length]!
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: cumulative, metricName: bucket })
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` })
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  /** `registry.resetMetrics()`: starts every series again from zero. */
  reset(): void {
    for (const s of this.#series) {
      s.count = 0
      s.sum = 0
      s.buckets.fill(0)
    }
  }
}
