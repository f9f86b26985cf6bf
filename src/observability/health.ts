/**
 * @module observability/health
 * `HealthCheck`: does the app's database answer? A probe (`select 1` on the default connection
 * through `db.manager`) raced against a short timeout (2 s by default).
 *
 * - One probe at a time: requests that arrive while one runs share its answer, so a flood of
 *   health probes against a slow database costs one query, not one per probe.
 * - Nothing is cached: the next request after an answer probes again, so the app reports the
 *   database back as soon as it answers, without a restart.
 * - A failed probe is tried once more at once (within the same timeout): the pool drops a
 *   connection the server closed on its first failure, and the retry takes a fresh one, so a
 *   database that restarted is not reported down because of one stale pooled connection.
 * - Only changes are logged (`health.database_unavailable` once when it stops answering,
 *   `health.database_available` when it is back), never each request.
 */
import type { Logger } from '../support/logger.js'

export const HEALTH_TIMEOUT_MS = 2000

export interface HealthCheckOptions {
  /** How long a probe may take before the answer is "unavailable" (ms, default 2000). */
  timeoutMs?: number
  /** Where the state changes are written; none when omitted. */
  log?: Logger
}

export class HealthCheck {
  readonly timeoutMs: number
  readonly #probe: () => Promise<unknown>
  readonly #log: Logger | undefined
  #inFlight: Promise<boolean> | null = null
  /** The last answer (null before the first), to log changes only. */
  #healthy: boolean | null = null

  /** @param probe resolves when the database answers, rejects otherwise (e.g. `DatabaseManager.check`). */
  constructor(probe: () => Promise<unknown>, options: HealthCheckOptions = {}) {
    this.#probe = probe
    this.timeoutMs = options.timeoutMs ?? HEALTH_TIMEOUT_MS
    this.#log = options.log
  }

  /** True when the database answered within `timeoutMs`. Never throws. */
  check(): Promise<boolean> {
    const running = (this.#inFlight ??= this.#run().finally(() => {
      this.#inFlight = null
    }))
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#record(false, new Error(`The database did not answer within ${this.timeoutMs} ms.`))
        resolve(false)
      }, this.timeoutMs)
      timer.unref()
      void running.then((healthy) => {
        clearTimeout(timer)
        resolve(healthy)
      })
    })
  }

  async #run(): Promise<boolean> {
    let failure: unknown
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.#probe()
        this.#record(true)
        return true
      } catch (error) {
        failure = error
      }
    }
    this.#record(false, failure)
    return false
  }

  #record(healthy: boolean, error?: unknown): void {
    if (this.#healthy === healthy) return
    const before = this.#healthy
    this.#healthy = healthy
    if (healthy && before === false) this.#log?.info('health.database_available')
    else if (!healthy) this.#log?.warn('health.database_unavailable', { error: error instanceof Error ? error.message : String(error) })
  }
}
