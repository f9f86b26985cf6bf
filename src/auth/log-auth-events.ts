/**
 * @module auth/log-auth-events
 * Writes one log line per auth event, so every auth log line comes from the one place the
 * thing happened. Lines carry the event's fields: `event` (its name, `auth:login_succeeded`),
 * `guard`, `user_id`, `ip`, `request_id`, and what the event adds (`retry_after`); never a
 * secret (the logger also redacts fields named like one). In `LOG_FORMAT=json` the line's own
 * `event` key is the line name (`auth.login`) and the event's name is written as `field_event`.
 */
import type { Emitter } from '../events/emitter.js'
import type { Logger } from '../support/logger.js'
import type { EventMap } from '../events/event-map.js'
import type { AuthEventBase, AuthEvents } from './events.js'
import type { AuthFeatureModule } from './features/contract.js'

/** The log line of each event (names kept stable for log searches). */
const LINES: { [K in keyof AuthEvents]: [level: 'info' | 'warn', line: string] } = {
  'auth:login_succeeded': ['info', 'auth.login'],
  'auth:login_failed': ['info', 'auth.login_failed'],
  'auth:throttled': ['warn', 'auth.throttled'],
  'auth:account_locked': ['warn', 'auth.account_locked'],
  'auth:logout': ['info', 'auth.logout'],
  'auth:registered': ['info', 'auth.registered'],
  'auth:password_reset_requested': ['info', 'auth.password_reset_requested'],
  'auth:password_reset': ['info', 'auth.password_reset'],
  'auth:token_issued': ['info', 'auth.token_issued'],
  'auth:token_created': ['info', 'auth.token_created'],
  'auth:token_reissued': ['info', 'auth.token_reissued'],
  'auth:token_revoked': ['info', 'auth.token_revoked'],
  'auth:token_reuse_detected': ['warn', 'auth.token_reuse_detected'],
  'auth:email_verified': ['info', 'auth.email_verified'],
  'auth:password_changed': ['info', 'auth.password_changed'],
  'auth:email_changed': ['info', 'auth.email_changed'],
  'auth:remember_reuse': ['warn', 'auth.remember_reuse'],
  'auth:device_revoked': ['info', 'auth.device_revoked'],
  'auth:account_deleted': ['info', 'auth.account_deleted'],
  'auth:secured': ['warn', 'auth.secured'],
}

function fields(name: string, event: AuthEventBase & { retryAfter?: number; userId?: string }): Record<string, unknown> {
  const out: Record<string, unknown> = {
    event: name,
    guard: event.guard,
    user_id: event.userId ?? event.user?.getKey() ?? null,
    ip: event.ip,
    request_id: event.requestId,
  }
  if (event.retryAfter !== undefined) out.retry_after = event.retryAfter
  return out
}

/** Subscribes the logger to every auth event: the core's, then each of `list`'s features' (`auth:x` → `auth.x`). */
export function logAuthEvents(events: Emitter, log: Logger, list: readonly AuthFeatureModule[]): void {
  const features = list.flatMap((f) => Object.entries(f.events ?? {}).map(([name, level]): [string, ['info' | 'warn', string]] => [name, [level, name.replace(/^auth:/, 'auth.')]]))
  for (const [name, [level, line]] of [...Object.entries(LINES), ...features]) {
    events.on(name as keyof EventMap, (event) => log[level](line, fields(name, event as AuthEventBase)))
  }
}
