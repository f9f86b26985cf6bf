/**
 * @module auth/audit/audit-log
 * The audit log: every `auth:*` event becomes a row of `auth_events` (`user_id`, `type`, `ip`,
 * `user_agent`, `details` as JSON, `created_at`). Rows are written after the event, without
 * delaying the request; a failed write is logged, never felt by the request. `details` holds only
 * the event's own non-identifying fields (guard, retry-after...): payloads never carry a
 * password, token, cookie or link, and anything that looks like one is dropped here too.
 * An app migrated before the table existed gets one warning and no rows until it migrates and restarts.
 */
import type { Knex } from 'knex'
import { MigratedTables } from '../inventory/migrated-tables.js'
import type { Emitter } from '../../events/emitter.js'
import type { Logger } from '../../support/logger.js'
import type { EventMap } from '../../events/event-map.js'
import type { AuthEventBase, AuthEvents } from '../events.js'
import type { AuthFeatureModule } from '../features/contract.js'

export const AUDIT_TABLE = 'auth_events'

/** Every core auth event name (a missing or unknown one fails the type check); the features name theirs in their modules. */
const RECORDED: Record<keyof AuthEvents, true> = {
  'auth:login_succeeded': true,
  'auth:login_failed': true,
  'auth:throttled': true,
  'auth:account_locked': true,
  'auth:logout': true,
  'auth:registered': true,
  'auth:password_reset_requested': true,
  'auth:password_reset': true,
  'auth:token_issued': true,
  'auth:token_created': true,
  'auth:token_reissued': true,
  'auth:token_revoked': true,
  'auth:token_reuse_detected': true,
  'auth:email_verified': true,
  'auth:password_changed': true,
  'auth:email_changed': true,
  'auth:remember_reuse': true,
  'auth:device_revoked': true,
  'auth:account_deleted': true,
  'auth:secured': true,
}

/** Every auth event the audit log records: the core's, then each of `list`'s features'. */
export function authEventNames(list: readonly AuthFeatureModule[]): string[] {
  return [...Object.keys(RECORDED), ...list.flatMap((f) => Object.keys(f.events ?? {}))]
}

/** Fields of a payload that are columns, not details. */
const COLUMNS = new Set(['user', 'userId', 'ip', 'userAgent', 'at', 'requestId'])
/** Never stored, whatever an event carries. */
const SECRET = /pass(word)?|token|secret|cookie|authorization|jwt|link|url|code/i

/** The row an event becomes. */
export function auditRow(type: string, event: AuthEventBase & Record<string, unknown>): Record<string, unknown> {
  const details: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(event)) {
    if (COLUMNS.has(key) || SECRET.test(key)) continue
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) details[key] = value
  }
  const userId = event.user?.getKey() ?? event.userId ?? null
  return {
    user_id: userId === null || userId === undefined ? null : Number(userId),
    type,
    ip: event.ip ? String(event.ip).slice(0, 64) : null,
    user_agent: event.userAgent ? String(event.userAgent).slice(0, 255) : null,
    details: JSON.stringify(details),
    created_at: event.at ?? new Date(),
  }
}

export class AuditLog {
  #warned = false
  /** Rows being written: `flush()` waits for them (before the database closes at shutdown). */
  readonly #pending = new Set<Promise<void>>()

  constructor(
    private readonly db: () => Knex,
    private readonly log: Logger,
    /** The tables the app has (read at boot): without the audit table, nothing is written. */
    private readonly migrated: MigratedTables = new MigratedTables(db),
  ) {}

  /** Subscribes to every auth event: the core's and those of the features in `list`. */
  listen(events: Emitter, list: readonly AuthFeatureModule[]): void {
    for (const name of authEventNames(list) as (keyof EventMap)[]) {
      events.on(name, (event) => this.#track(this.record(name, event as AuthEventBase & Record<string, unknown>)))
    }
  }

  /** Resolves once every row being written is written (or has failed): a command's events are not lost at shutdown. */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending])
  }

  /** Keeps `write` until it settles; returned as is, so the emitter still reports a failure. */
  #track(write: Promise<void>): Promise<void> {
    this.#pending.add(write)
    const done = () => void this.#pending.delete(write)
    write.then(done, done)
    return write
  }

  /** Writes one row; resolves once written (or skipped when the table is missing). */
  async record(type: string, event: AuthEventBase & Record<string, unknown>): Promise<void> {
    if (!(await this.#tableExists())) return
    await this.db()(AUDIT_TABLE).insert(auditRow(type, event))
  }

  async #tableExists(): Promise<boolean> {
    await this.migrated.ready()
    const exists = this.migrated.has(AUDIT_TABLE)
    if (!exists && !this.#warned) {
      this.#warned = true
      this.log.warn('auth.audit_table_missing', { table: AUDIT_TABLE, fix: 'node craft auth, then node craft migrate, then restart the app' })
    }
    return exists
  }
}
