/**
 * @module auth/organizations/organizations
 * The `organizations` service (`auth.organizations`): the stores, the roles of
 * `GUARDS.organizations`, the `invite` budget (per organisation), the invitation mail, the events,
 * the organisation's activity (its events from the audit log), and the current organisation of a
 * request: the route's `@organization` (a slug), else the `X-Organization` header, else the
 * session's; read once per request (one indexed look-up) and kept on the context.
 */
import type { Knex } from 'knex'
import type { Application } from '../../foundation/application.js'
import { appName, appUrl } from '../../foundation/config-files.js'
import type { HttpContext } from '../../http/context.js'
import { NotFoundError } from '../../http/errors.js'
import type { Mailer, Mailable } from '../../mail/index.js'
import { Budget } from '../throttle/budget.js'
import { AUDIT_TABLE } from '../audit/audit-log.js'
import { eventBase } from '../events.js'
import type { AuthUser } from '../types.js'
import { storedDate } from '../inventory/index.js'
import type { OrganizationsConfig } from './config.js'
import type { OrganizationEvents } from './events.js'
import { InvitationStore } from './invitation-store.js'
import { OrganizationStore } from './organization-store.js'
import type { CurrentOrganization, OrganizationRecord } from './records.js'
import { Roles } from './roles.js'
import { DefaultOrganizationInvitation } from './mail.js'

/** Session key of the current organisation's id. */
export const CURRENT_ORGANIZATION_KEY = 'auth.organization'
/** The request header naming the current organisation by slug (the API's way). */
export const ORGANIZATION_HEADER = 'x-organization'

// `ctx.organization` and `ctx.membership` are declared by authorization; set by the `org`
// middleware (or a page under /organizations/@slug), they also carry these fields.
declare module '../authorization/types.js' {
  interface OrganizationRecord {
    createdAt?: Date | null
  }
  interface MembershipRecord {
    /** The role's abilities (`'*'` covers every one). */
    abilities?: readonly string[]
  }
}

declare module '../../http/context.js' {
  interface RequestState {
    /** The current organisation, once looked up on this request (null: none). */
    currentOrganization?: Promise<CurrentOrganization | null>
  }
}

type MailableClass = new (...args: any[]) => Mailable

/** One line of an organisation's activity. */
export interface ActivityItem {
  type: string
  userId: string | null
  details: Record<string, unknown>
  at: Date | null
}

export class Organizations {
  readonly roles: Roles
  readonly store: OrganizationStore
  readonly invitations: InvitationStore
  readonly inviteBudget: Budget

  constructor(
    readonly app: Application,
    readonly config: OrganizationsConfig,
    readonly db: () => Knex,
    readonly users: () => { table: string; key: string; email: string },
  ) {
    this.roles = new Roles(config.roles)
    this.store = new OrganizationStore(db, this.roles, users)
    this.invitations = new InvitationStore(db)
    this.inviteBudget = new Budget('invite', app.make('auth.throttle').store, config.inviteBudget)
  }

  /** Emits an organisation event with the request's fields. */
  emit<K extends keyof OrganizationEvents>(ctx: HttpContext, name: K, user: AuthUser, organization: OrganizationRecord, fields: Omit<OrganizationEvents[K], keyof ReturnType<typeof eventBase> | 'organizationId' | 'slug'>): void {
    const payload = { ...eventBase(ctx, ctx.auth.guardName, user), organizationId: String(organization.id), slug: organization.slug, ...fields }
    this.app.events.emit(name as keyof OrganizationEvents, payload as never)
  }

  /**
   * The request's current organisation with the user's membership, or null when none is named.
   * A named organisation the user is not in (or that does not exist) is 404; a stale session
   * entry is forgotten. Kept for the request: every later ask costs nothing.
   */
  current(ctx: HttpContext, user: AuthUser): Promise<CurrentOrganization | null> {
    ctx.state.currentOrganization ??= this.#resolve(ctx, user)
    return ctx.state.currentOrganization
  }

  async #resolve(ctx: HttpContext, user: AuthUser): Promise<CurrentOrganization | null> {
    const userId = user.getKey() as string | number
    const named = ctx.params.organization ?? ctx.request.header(ORGANIZATION_HEADER)
    let found: CurrentOrganization | null = null
    if (typeof named === 'string' && named !== '') {
      found = await this.store.findBySlug(named, userId)
      if (!found) throw new NotFoundError()
    } else if (ctx.hasSession) {
      const id = ctx.session.get(CURRENT_ORGANIZATION_KEY)
      if (id !== undefined && id !== null) {
        found = await this.store.findById(id, userId)
        if (!found) ctx.session.forget(CURRENT_ORGANIZATION_KEY)
      }
    }
    if (found) {
      ctx.organization = found.organization
      ctx.membership = found.membership
    }
    return found
  }

  /** Makes `organization` the session's current one. */
  switchTo(ctx: HttpContext, organization: OrganizationRecord): void {
    if (ctx.hasSession) ctx.session.put(CURRENT_ORGANIZATION_KEY, organization.id)
  }

  appUrl(): string {
    return appUrl(this.app)
  }

  appName(): string {
    return appName(this.app)
  }

  /** Mails the invitation after the answer; a failure is logged, never thrown. */
  mailInvitation(ctx: HttpContext, to: string, token: string, details: { organization: string; role: string; inviter: string; days: number }): void {
    const where = { ip: ctx.request.ip(), request_id: ctx.request.id }
    const url = `${this.appUrl()}/invitations/${token}`
    this.app.background(
      () => {
        const Mail = this.app.get<MailableClass>('auth.organization_invitation_mailable') ?? DefaultOrganizationInvitation
        return this.app.make<Mailer>('mailer').send(new Mail(to, { ...details, url, appName: this.appName() }))
      },
      (error) => this.app.log.error('auth.invitation_mail_failed', { ...where, error: error instanceof Error ? error.message : String(error) }),
    )
  }

  /** The organisation's last `limit` events from the audit log, newest first (none without the table). */
  async activity(organizationId: number, limit = 20): Promise<ActivityItem[]> {
    const db = this.db()
    const migrated = this.app.make('auth.manager').inventory.migrated
    await migrated.ready()
    if (!migrated.has(AUDIT_TABLE)) return []
    const rows = await db(AUDIT_TABLE)
      .whereIn('type', ['auth:organization_created', 'auth:member_invited', 'auth:member_joined', 'auth:member_role_changed', 'auth:member_removed'])
      .where('details', 'like', `%"organizationId":"${organizationId}"%`)
      .orderBy('id', 'desc')
      .limit(limit)
      .select('type', 'user_id', 'details', 'created_at')
    return rows.map((row) => {
      let details: Record<string, unknown> = {}
      try {
        details = JSON.parse(String(row.details ?? '{}')) as Record<string, unknown>
      } catch {
        // A row written by hand: shown without details.
      }
      return { type: String(row.type), userId: row.user_id === null ? null : String(row.user_id), details, at: storedDate(row.created_at) }
    })
  }
}
