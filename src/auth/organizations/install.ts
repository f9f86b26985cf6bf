/**
 * @module auth/organizations/install
 * Boot-time wiring of organisations (called by AuthProvider): the inventory kind of sent
 * invitations (`organization_invitations`) whatever the features; with `organizations` in
 * `GUARDS.features`, the service (`auth.organizations`), the `org` route middleware, the current
 * membership's abilities as an ability source of `can:`, the invitation mail
 * (`app/mailables/OrganizationInvitation.ts` when the app has one), the audit rows and metrics of its events.
 */
import type { Application } from '../../foundation/application.js'
import type { HttpContext } from '../../http/context.js'
import { importAppModule } from '../../foundation/app-modules.js'
import { findModule } from '../../foundation/module-finder.js'
import { db } from '../../database/database-manager.js'
import { AUDIT_TABLE, auditRow } from '../audit/audit-log.js'
import type { AuthEventBase } from '../events.js'
import type { ResolvedAuthConfig } from '../auth-config.js'
import { AuthConfigError } from '../errors.js'
import type { AuthUser } from '../types.js'
import { registerAbilitySource } from './ability-source.js'
import { resolveOrganizationsConfig } from './config.js'
import { ORGANIZATION_EVENT_NAMES } from './events.js'
import { organizationInvitationsKind } from './invitations-kind.js'
import { DefaultOrganizationInvitation } from './mail.js'
import { OrgMiddleware } from './org-middleware.js'
import { Organizations } from './organizations.js'
import { countOrganizationEvents } from './metrics.js'

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    /** Organisations, members, roles and invitations (`organizations` feature). */
    'auth.organizations': Organizations
  }
}

/** The service, or a message naming the feature to turn on. */
export function organizations(ctx: HttpContext): Organizations {
  const service = ctx.app.get<Organizations>('auth.organizations')
  if (!service) throw new AuthConfigError('Organisations are off: add "organizations" to GUARDS.features in config/auth.ts.')
  return service
}

export async function installOrganizations(app: Application, config: ResolvedAuthConfig): Promise<void> {
  const manager = app.make('auth.manager')
  const on = (config.features as ReadonlySet<string>).has('organizations')
  const users = () => {
    const model = config.model
    return { table: model?.getTable?.() ?? 'users', key: model?.getPrimaryKey?.() ?? 'id', email: model?.authColumn ?? 'email' }
  }
  const own = on ? resolveOrganizationsConfig(app.config('auth')?.GUARDS) : null
  const service = own ? new Organizations(app, own, () => db(), users) : null
  // Whatever the features: invitations sent before the feature was turned off still end with recovery.
  manager.inventory.register(organizationInvitationsKind(manager.inventory, service ? (userId, trx) => service.store.beforeAccountDeleted(userId as string | number, trx) : undefined))
  if (!service) return
  app.singleton('auth.organizations', () => service)
  const stacks = app.kernel?.routeMiddleware
  if (stacks) stacks.org ??= [OrgMiddleware]
  registerAbilitySource(app, async (ctx) => {
    if (!(await ctx.auth.check())) return null
    const current = await service.current(ctx, ctx.auth.user<AuthUser>()!)
    return current ? current.membership.abilities : null
  })
  const file = findModule(app.path('app/mailables/OrganizationInvitation'))
  const mod = file ? await importAppModule(file, 'app/mailables/OrganizationInvitation.ts') : {}
  app.bind('auth.organization_invitation_mailable', mod.OrganizationInvitation ?? mod.default ?? DefaultOrganizationInvitation)
  await countOrganizationEvents(app)
  if (config.audit.enabled) {
    for (const name of ORGANIZATION_EVENT_NAMES) {
      app.events.on(name, async (event) => {
        if (await db().schema.hasTable(AUDIT_TABLE)) await db()(AUDIT_TABLE).insert(auditRow(name, event as unknown as AuthEventBase & Record<string, unknown>))
      })
    }
  }
}
