/**
 * @module auth/organizations/feature
 * Organisations (`organizations` in `GUARDS.features`, not generated on: `node craft auth
 * --organizations` writes its files and turns it on): the organisation, member and invitation
 * pages, the `org` route middleware, the `invite` budget (per organisation), the inventory kind of
 * sent invitations, its events (audited), its error, and the expired invitations `auth:prune` deletes.
 */
import { defineFeature } from '../features/contract.js'
import * as errors from './errors.js'
import { ORGANIZATION_EVENT_NAMES } from './events.js'
import { deletionGuard, installOrganizations } from './install.js'
import { organizationInvitationsKind } from './invitations-kind.js'
import { OrgMiddleware } from './org-middleware.js'
import { INVITATIONS_TABLE } from './records.js'
import { organizationRoutes } from './routes.js'
import { DEFAULT_INVITE_BUDGET } from './config.js'

declare module '../auth-config.js' {
  interface AuthBudgets {
    /** Invitations sent per organisation. */
    invite: true
  }
}

export const organizationsFeature = defineFeature({
  name: 'organizations',
  generated: false,
  budgets: { invite: DEFAULT_INVITE_BUDGET },
  errors,
  events: Object.fromEntries(ORGANIZATION_EVENT_NAMES.map((name) => [name, 'info' as const])),
  routes: () => organizationRoutes(),
  // Whatever the features: invitations sent while the feature was on still end with recovery.
  inventory: (inventory) => [organizationInvitationsKind(deletionGuard(inventory))],
  install: installOrganizations,
  middleware: { org: [OrgMiddleware] },
  prune: [{ table: INVITATIONS_TABLE, expired: (q, now) => q.where('expires_at', '<=', now) }],
})
