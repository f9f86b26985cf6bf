/**
 * @module auth/organizations/install
 * Boot-time wiring of organisations (the feature module's `install`, when `organizations` is in
 * `GUARDS.features`): the service (`auth.organizations`), the current membership's abilities as
 * an ability source of `can:`, the invitation mail (`app/mailables/OrganizationInvitation.ts` when
 * the app has one), the metrics of its events, and the last-owner rule on account deletion.
 */
import type { Knex } from 'knex'
import type { Application } from '../../foundation/application.js'
import type { HttpContext } from '../../http/context.js'
import { importAppModule } from '../../foundation/app-modules.js'
import { findModule } from '../../foundation/module-finder.js'
import { connectionOf } from '../../database/app-database.js'
import type { ResolvedAuthConfig } from '../auth-config.js'
import { AuthConfigError } from '../errors.js'
import { usersTableOf, type AuthInventory } from '../inventory/index.js'
import type { AuthUser } from '../types.js'
// gate.js, not the folder's index: the index decorates ctx.authorize, which needs ctx.auth loaded first.
import { registerAbilitySource } from '../authorization/gate.js'
import { resolveOrganizationsConfig } from './config.js'
import { DefaultOrganizationInvitation } from './mail.js'
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

type DeletionCheck = (userId: unknown, trx: Knex.Transaction) => Promise<void>
/** Per inventory (one per app): the last-owner rule, once the feature has booted. */
const DELETION_CHECKS = new WeakMap<AuthInventory, DeletionCheck>()

/** What the invitations kind runs before an account is deleted: the last-owner rule when the feature is on, else nothing. */
export function deletionGuard(inventory: AuthInventory): DeletionCheck {
  return async (userId, trx) => {
    await DELETION_CHECKS.get(inventory)?.(userId, trx)
  }
}

export async function installOrganizations(app: Application, config: ResolvedAuthConfig): Promise<void> {
  const manager = app.make('auth.manager')
  const service = new Organizations(app, resolveOrganizationsConfig(app.config('auth')?.GUARDS), () => connectionOf(app), () => usersTableOf(config.model))
  app.singleton('auth.organizations', () => service)
  DELETION_CHECKS.set(manager.inventory, (userId, trx) => service.store.beforeAccountDeleted(userId as string | number, trx))
  registerAbilitySource(app, async (ctx) => {
    if (!(await ctx.auth.check())) return null
    const current = await service.current(ctx, ctx.auth.user<AuthUser>()!)
    return current ? current.membership.abilities : null
  })
  const file = findModule(app.path('app/mailables/OrganizationInvitation'))
  const mod = file ? await importAppModule(file, 'app/mailables/OrganizationInvitation.ts') : {}
  app.bind('auth.organization_invitation_mailable', mod.OrganizationInvitation ?? mod.default ?? DefaultOrganizationInvitation)
  await countOrganizationEvents(app)
}
