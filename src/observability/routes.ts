/**
 * @module observability/routes
 * The framework's own operational routes, outside every middleware stack (no session, no cookie,
 * no CSRF), JSON errors:
 * - `GET /health`: 200 `{"status":"ok"}` while the database answers, else 503
 *   `{"status":"unavailable"}`; `Cache-Control: no-store`.
 * - `GET /metrics` (only when `METRICS_TOKEN` is set): the Prometheus text format, for
 *   `Authorization: Bearer <METRICS_TOKEN>` only; otherwise 401 `E_UNAUTHORIZED` with
 *   `WWW-Authenticate: Bearer realm="metrics"`.
 */
import { Route } from '../routing/route.js'
import type { RouteDefinition } from '../routing/route-definition.js'
import type { HttpContext } from '../http/context.js'
import { ServiceUnavailableError, UnauthorizedError } from '../http/errors.js'
import type { HealthCheck } from './health.js'
import { bearerChecker } from './metrics-token.js'

export const HEALTH_PATH = '/health'
export const METRICS_PATH = '/metrics'

function operational(route: RouteDefinition): RouteDefinition {
  route.withoutMiddleware('web')
  route.csrfExempt = true
  route.json = true
  return route
}

export function healthRoute(check: HealthCheck): RouteDefinition {
  return operational(
    Route.get(HEALTH_PATH, async function health({ response }: HttpContext) {
      const healthy = await check.check()
      response.json({ status: healthy ? 'ok' : 'unavailable' }, healthy ? 200 : 503)
      response.header('cache-control', 'no-store')
    }),
  )
}

export interface MetricsScrape {
  contentType: string
  text: string
}

export function metricsRoute(token: string, scrape: () => Promise<MetricsScrape>): RouteDefinition {
  const authorized = bearerChecker(token)
  return operational(
    Route.get(METRICS_PATH, async function metrics({ request, response }: HttpContext) {
      if (!authorized(request.header('authorization'))) {
        throw new UnauthorizedError(undefined, { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"', 'Cache-Control': 'no-store' } })
      }
      let result: MetricsScrape
      try {
        result = await scrape()
      } catch (error) {
        throw new ServiceUnavailableError('The metrics could not be collected.', { cause: error })
      }
      response.text(result.text)
      response.header('content-type', result.contentType)
      response.header('cache-control', 'no-store')
    }),
  )
}
