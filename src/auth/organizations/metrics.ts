/**
 * @module auth/organizations/metrics
 * With `/metrics` on (`METRICS_TOKEN`), `trowel_organization_events_total{event}` counts the
 * feature's events (`organization_created`, `member_invited`, `member_joined`, ...).
 */
import type { Application } from '../../foundation/application.js'
import { ORGANIZATION_EVENT_NAMES } from './events.js'

export async function countOrganizationEvents(app: Application): Promise<void> {
  const metrics = app.get('observability.metrics')
  if (!metrics) return
  const { Counter } = await import('prom-client')
  const counter = new Counter({
    name: 'trowel_organization_events_total',
    help: 'Organisation events: organisations created and deleted, members invited, joined, re-roled and removed.',
    labelNames: ['event'],
    registers: [metrics.registry],
  })
  for (const name of ORGANIZATION_EVENT_NAMES) {
    counter.inc({ event: name.slice('auth:'.length) }, 0)
    app.events.on(name, () => counter.inc({ event: name.slice('auth:'.length) }))
  }
}
