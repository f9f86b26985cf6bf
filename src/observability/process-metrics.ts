/**
 * @module observability/process-metrics
 * `collectProcessMetrics(registry, { gc })`: prom-client's default process metrics (CPU, memory,
 * heap spaces, event loop lag, handles, file descriptors, version), prefixed `trowel_`, with the
 * garbage-collection histogram (`trowel_nodejs_gc_duration_seconds`) only when asked for
 * (`METRICS_GC=true`).
 *
 * Why the GC histogram is opt-in: prom-client feeds it from a `PerformanceObserver` on `gc`
 * entries, and Node then builds an entry and runs a callback after every collection. With the
 * young generation `craft serve` keeps small (foundation/young-generation) a busy server makes
 * on the order of a hundred small collections a second, and the observer cost about 8 % of the
 * requests per CPU-second (bench/RESULTS.md, "Metrics on"). The others are read when Prometheus
 * scrapes, but for the event loop lag, which prom-client samples with `monitorEventLoopDelay`
 * (a timer every 10 ms).
 *
 * prom-client offers no way to leave one default collector out, so each is loaded by the name its
 * `collectDefaultMetrics.metricsList` gives (the files of `prom-client/lib/metrics/`).
 */
import { createRequire } from 'node:module'
import { collectDefaultMetrics, type Registry } from 'prom-client'

const requireModule = createRequire(import.meta.url)

type Collector = (registry: Registry, config: Record<string, unknown>) => void

export interface ProcessMetricsOptions {
  prefix: string
  /** `trowel_nodejs_gc_duration_seconds` too (a callback after every garbage collection). */
  gc?: boolean
}

/** The names of prom-client's default collectors this process registers. */
export function processCollectors(options: { gc?: boolean } = {}): string[] {
  const list = (collectDefaultMetrics as unknown as { metricsList: string[] }).metricsList
  return list.filter((name) => options.gc === true || name !== 'gc')
}

export function collectProcessMetrics(registry: Registry, options: ProcessMetricsOptions): void {
  const config = { register: registry, prefix: options.prefix, eventLoopMonitoringPrecision: 10 }
  for (const name of processCollectors(options)) {
    const collector = requireModule(`prom-client/lib/metrics/${name}`) as Collector
    collector(registry, config)
  }
}

/** `METRICS_GC=true` (or 1, yes, on): also observe every garbage collection. */
export function gcMetricsWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(true|1|yes|on)$/i.test((env.METRICS_GC ?? '').trim())
}
