/**
 * @module auth/account-pages/activity-forms
 * What the generated ActivityController does: `GET /account/activity` (behind `auth`), the
 * user's own last 50 rows of the audit log (`auth_events`), newest first, in plain words: when,
 * what ("Signed in", "Failed sign-in"...), from which IP and browser. Only columns that never hold
 * a secret are read; `details` is used only to word an event, never shown as is.
 */
import type { Knex } from 'knex'
import type { MigratedTables } from '../inventory/migrated-tables.js'
import type { HttpContext } from '../../http/context.js'
import { AUDIT_TABLE } from '../audit/audit-log.js'
import { parseDetails } from '../audit/audit-query.js'
import { describeUserAgent, formatWhen } from '../accounts/devices.js'
import type { AuthFeatureModule } from '../features/contract.js'
import { featuresOf } from '../features/registry.js'

/** How many events the page shows. */
export const ACTIVITY_LIMIT = 50

/** Each core event type in plain words (the features add theirs: `activityLabels`; types not listed: their name, in words). */
export const ACTIVITY_LABELS: Record<string, string> = {
  'auth:login_succeeded': 'Signed in',
  'auth:login_failed': 'Failed sign-in',
  'auth:social_linked': 'Sign-in provider linked',
  'auth:social_unlinked': 'Sign-in provider disconnected',
  'auth:throttled': 'Too many attempts: paused for a while',
  'auth:account_locked': 'Too many failed sign-ins from elsewhere: sign-ins paused',
  'auth:logout': 'Signed out',
  'auth:registered': 'Account created',
  'auth:email_verified': 'E-mail address verified',
  'auth:password_reset_requested': 'Password reset requested',
  'auth:password_reset': 'Password reset',
  'auth:password_changed': 'Password changed',
  'auth:email_changed': 'E-mail address changed',
  'auth:token_issued': 'API token issued',
  'auth:token_created': 'Personal access token created',
  'auth:token_reissued': 'API token renewed',
  'auth:token_revoked': 'API token revoked',
  'auth:token_reuse_detected': 'An old API token was used again: tokens revoked',
  'auth:remember_reuse': 'An old "remember me" token was used again: that device was logged out',
  'auth:passkey_added': 'Passkey added',
  'auth:passkey_removed': 'Passkey removed',
  'auth:device_revoked': 'Device logged out',
  'auth:account_deleted': 'Account deleted',
  'auth:secured': 'Account secured ("This wasn\'t me"): everything logged out',
}

export interface ActivityEntry {
  id: number
  type: string
  /** The event in plain words. */
  label: string
  at: Date | null
  when: string
  iso: string
  ip: string | null
  client: string
}

/** The core's labels and those of every feature of `list` (on or not: its events stay in the log). */
export function activityLabels(list: readonly AuthFeatureModule[]): Readonly<Record<string, string>> {
  return Object.assign({}, ACTIVITY_LABELS, ...list.map((f) => f.activityLabels ?? {})) as Record<string, string>
}

/** An event type in plain words (`labels`: the core's and the features', see `activityLabels`). */
export function describeEvent(type: string, detail: Record<string, unknown> = {}, labels: Readonly<Record<string, string>> = ACTIVITY_LABELS): string {
  if (type === 'auth:device_revoked' && detail.device === 'others') return 'All other devices logged out'
  const known = labels[type]
  if (known) return known
  const words = type.replace(/^auth:/, '').replaceAll('_', ' ').trim()
  return words === '' ? 'Event' : words[0]!.toUpperCase() + words.slice(1)
}

/**
 * The user's last `limit` audit events, newest first; none when the app has no audit table
 * (`migrated`: the tables the app has, read at boot; an app migrated before the audit log existed).
 */
export async function recentActivity(knex: Knex, userId: unknown, migrated: MigratedTables, limit = ACTIVITY_LIMIT, labels: Readonly<Record<string, string>> = ACTIVITY_LABELS): Promise<ActivityEntry[]> {
  await migrated.ready()
  if (!migrated.has(AUDIT_TABLE)) return []
  const rows: Record<string, unknown>[] = await knex(AUDIT_TABLE)
    .where('user_id', userId as number)
    .select('id', 'type', 'ip', 'user_agent', 'details', 'created_at')
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit)
  return rows.map((row) => {
    const at = row.created_at === null || row.created_at === undefined ? null : new Date(row.created_at as string | number | Date)
    const valid = at && Number.isFinite(at.getTime()) ? at : null
    const type = String(row.type)
    return {
      id: Number(row.id),
      type,
      label: describeEvent(type, parseDetails(row.details), labels),
      at: valid,
      when: formatWhen(valid),
      iso: valid?.toISOString() ?? '',
      ip: typeof row.ip === 'string' && row.ip !== '' ? row.ip : null,
      client: describeUserAgent(row.user_agent as string | null),
    }
  })
}

export const ActivityForms = {
  /** GET /account/activity */
  async index(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const events = await recentActivity(ctx.auth.manager.db(), user.getKey(), ctx.auth.manager.inventory.migrated, ACTIVITY_LIMIT, activityLabels(featuresOf(ctx.app)))
    ctx.response.header('Cache-Control', 'no-store')
    if (ctx.request.wantsJson()) {
      return { data: events.map((e) => ({ type: e.type, label: e.label, at: e.iso, ip: e.ip, client: e.client })) }
    }
    return ctx.view.render('auth/activity', { user, events, limit: ACTIVITY_LIMIT })
  },
}
