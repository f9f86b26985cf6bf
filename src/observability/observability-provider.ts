/**
 * @module observability/observability-provider
 * `ObservabilityProvider` (a core provider, always registered):
 * - binds `observability.health` and serves `GET /health` (see `routes.ts`);
 * - when `METRICS_TOKEN` is set (and the app serves HTTP), binds `observability.metrics`, an
 *   `AppMetrics` with a registry of its own, adds its response hook to `http.response.hooks`,
 *   counts the auth events, joins the cluster aggregation in a `craft serve --workers` worker, and
 *   serves `GET /metrics`. Without the token nothing of this exists: prom-client is not even
 *   loaded, the request path reads no clock, and `/metrics` is a 404 like any unknown path.
 *
 * The routes are added by a booted hook (`app.booted.hooks`), that is after the web routes are
 * mounted and resolved, so that an app which declares its own `GET /health` (or `/metrics`)
 * keeps it: the router is asked for a route with that exact path first. The hook resolves the
 * routes it adds itself, as startup resolves the others.
 */
import cluster from 'node:cluster'
import { ServiceProvider } from '../foundation/service-provider.js'
import type { Application } from '../foundation/application.js'
import type { Router } from '../routing/router.js'
import type { RouteDefinition } from '../routing/route-definition.js'
import { resolveRoute } from '../foundation/route-resolver.js'
import type { ResponseHook } from '../http/request-handler.js'
import { HealthCheck } from './health.js'
import type { AppMetrics } from './metrics.js'
import { metricsToken } from './metrics-token.js'
import { HEALTH_PATH, METRICS_PATH, healthRoute, metricsRoute, type MetricsScrape } from './routes.js'

export class ObservabilityProvider extends ServiceProvider {
  static providerName = 'ObservabilityProvider'
  #token: string | undefined
  #scrape: (() => Promise<MetricsScrape>) | undefined

  override async register(): Promise<void> {
    const app = this.application
    app.bind('observability.health', new HealthCheck(() => app.make('db.manager').check(), { log: app.log }))
    const token = metricsToken()
    if (token === undefined || app.get('app.mode') === 'console') return
    this.#token = token
    const { AppMetrics } = await import('./metrics.js')
    const metrics = new AppMetrics({ hashQueueLength: () => hashQueueLength(app) })
    app.bind('observability.metrics', metrics)
    app.bind('http.response.hooks', [...(app.get<ResponseHook[]>('http.response.hooks') ?? []), metrics.observeRequest])
  }

  override async boot(): Promise<void> {
    const app = this.application
    const metrics = app.get('observability.metrics')
    if (metrics) {
      metrics.listen(app.events)
      metrics.initGuards(knownGuards(app))
      if (cluster.isWorker && Number(process.env.TROWEL_WORKERS) > 1) {
        const { joinClusterMetrics } = await import('./cluster-metrics.js')
        this.#scrape = joinClusterMetrics(metrics.registry)
      } else {
        this.#scrape = async () => ({ contentType: metrics.contentType, text: await metrics.metrics() })
      }
    }
    app.bind('app.booted.hooks', [...(app.get<(() => unknown)[]>('app.booted.hooks') ?? []), () => this.#booted()])
  }

  async #booted(): Promise<void> {
    const metrics = this.application.get('observability.metrics')
    if (metrics) observeHashWaits(this.application, metrics)
    await this.mountRoutes()
  }

  /** Adds `/health` (and `/metrics` when on) unless the app has a GET route at that path. Runs once routes are resolved. */
  async mountRoutes(): Promise<void> {
    const app = this.application
    const routes: RouteDefinition[] = []
    if (!hasGetRoute(app.router, HEALTH_PATH)) routes.push(healthRoute(app.make('observability.health')))
    if (this.#token !== undefined && this.#scrape && !hasGetRoute(app.router, METRICS_PATH)) routes.push(metricsRoute(this.#token, this.#scrape))
    if (routes.length === 0) return
    for (const route of app.router.mount(routes, { json: true })) {
      route.runtime = await resolveRoute(app, route)
      // Errors on these paths (a 405, say) answer JSON too.
      app.router.jsonPrefixes.push(route.path)
    }
  }
}

function hasGetRoute(router: Router, path: string): boolean {
  return router.routes.some((route) => route.path === path && route.methods.includes('GET'))
}

/** The guards whose login series start at 0: the default web guard, and `jwt` with the API. */
function knownGuards(app: Application): string[] {
  const guards: string[] = []
  if (app.hasProvider('AuthProvider')) {
    const configured = app.config('auth')?.GUARDS?.default
    guards.push(typeof configured === 'string' && configured !== '' ? configured : 'web')
  }
  if (app.hasProvider('ApiProvider') && !guards.includes('jwt')) guards.push('jwt')
  return guards
}

/** What the observability code reads from the app's hasher, when it offers it. */
interface ObservableHasher {
  /** Jobs waiting for a hashing thread (the process's pool). */
  queueLength?: unknown
  /** Called with each job's wait (ms) when a thread takes it. */
  onWait?: ((ms: number) => void) | undefined
}

/**
 * Hashing jobs waiting for a thread: the hasher's `queueLength` when it has one (read at scrape
 * time), else undefined (the gauge has no sample).
 */
function hashQueueLength(app: Application): number | undefined {
  if (!app.has('hasher')) return undefined
  const n = (app.make('hasher') as unknown as ObservableHasher).queueLength
  return typeof n === 'number' ? n : undefined
}

/** Feeds `trowel_hash_wait_seconds` from the hasher's `onWait` when it has that hook (keeping any listener already set). */
function observeHashWaits(app: Application, metrics: AppMetrics): void {
  if (!app.has('hasher')) return
  const hasher = app.make('hasher') as unknown as ObservableHasher
  if (!('onWait' in hasher)) return
  const previous = hasher.onWait
  const observe = metrics.observeHashWaits()
  hasher.onWait = previous ? (ms) => (previous(ms), observe(ms)) : observe
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    'observability.health': HealthCheck
    'observability.metrics': AppMetrics
    'http.response.hooks': ResponseHook[]
  }
}
