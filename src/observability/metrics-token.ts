/**
 * @module observability/metrics-token
 * `METRICS_TOKEN` turns `GET /metrics` on; a scrape must send `Authorization: Bearer <token>`.
 * The comparison is timing-safe and length-blind: both sides are SHA-256 digests.
 * Kept free of prom-client so that checking whether metrics are on loads nothing.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

/** The metrics token from the environment, or undefined when metrics are off (unset or blank). */
export function metricsToken(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const token = env.METRICS_TOKEN?.trim()
  return token ? token : undefined
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/** A checker for `Authorization` headers: true only for `Bearer <token>`. */
export function bearerChecker(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token)
  return (authorization) => {
    if (typeof authorization !== 'string' || authorization.slice(0, 7).toLowerCase() !== 'bearer ') return false
    const credential = authorization.slice(7).trim()
    return credential !== '' && timingSafeEqual(digest(credential), expected)
  }
}
