/**
 * @module auth/prune
 * Housekeeping for the tables auth grows: web logins past their lifetime or idle timeout, expired reset links, remember-me tokens,
 * mailed links (verification, "This wasn't me", trusted devices), sign-in challenges (passkeys, the
 * API's second step), finished throttle windows, the tables the features name (`prune` of their
 * modules, and the rules other packages bind at `auth.prune.rules`: the JWT API's personal tokens
 * and token families) and audit rows older than `GUARDS.audit.keep_days`. Each table is skipped
 * when the app does not have it (`migrated`: the tables read at boot). Run by `node craft auth:prune`.
 */
import type { Knex } from 'knex'
import type { Application } from '../foundation/application.js'
import { connectionOf } from '../database/app-database.js'
import type { ResolvedAuthConfig } from './auth-config.js'
import { AUDIT_TABLE } from './audit/audit-log.js'
import { THROTTLE_TABLE } from './throttle/database-throttle-store.js'
import type { PruneRule } from './features/contract.js'
import { featuresOf } from './features/registry.js'
import { MigratedTables } from './inventory/migrated-tables.js'

export interface PruneResult {
  /** Rows removed per table, in the order pruned. */
  removed: { table: string; rows: number }[]
}

/** The prune rules of `app`: its auth features' (in list order), then those bound at `auth.prune.rules`. */
export function pruneRulesOf(app: Application): PruneRule[] {
  return [...featuresOf(app).flatMap((f) => f.prune ?? []), ...(app.get<readonly PruneRule[]>('auth.prune.rules') ?? [])]
}

/**
 * Deletes what has expired in the core's tables and in those `rules` name (`pruneRulesOf(app)`).
 * `migrated`: the tables the app has (default: read once, now, for this run).
 */
export async function pruneAuthTables(db: Knex, config: ResolvedAuthConfig, rules: readonly PruneRule[], now: Date = new Date(), migrated: MigratedTables = new MigratedTables(() => db)): Promise<PruneResult> {
  const removed: PruneResult['removed'] = []
  await migrated.ready()
  const prune = async (table: string, query: (q: Knex.QueryBuilder) => Knex.QueryBuilder) => {
    if (!migrated.has(table)) return
    removed.push({ table, rows: Number(await query(db(table)).delete()) })
  }
  if (config.loginLifetime !== null || config.idleTimeout !== null) {
    const created = config.loginLifetime === null ? null : new Date(now.getTime() - config.loginLifetime * 60_000)
    const idle = config.idleTimeout === null ? null : new Date(now.getTime() - config.idleTimeout * 60_000)
    await prune('login_tokens', (q) =>
      q.where((w) => {
        if (created) w.orWhere('created_at', '<', created)
        if (idle) w.orWhere((v) => v.whereNull('last_used_at').where('created_at', '<', idle)).orWhere('last_used_at', '<', idle)
      }),
    )
  }
  await prune(config.passwordResetTable, (q) => q.whereNotNull('expires_at').where('expires_at', '<=', now))
  await prune('remember_tokens', (q) => q.where('expires_at', '<=', now))
  await prune('user_tokens', (q) => q.where('expires_at', '<=', now))
  await prune('auth_challenges', (q) => q.where('expires_at', '<=', now))
  // The features' own tables (on or not: rows written while one was on still expire).
  for (const { table, expired, tidy } of rules) {
    await prune(table, (q) => expired(q, now))
    if (tidy && migrated.has(table)) await tidy(db(table), now)
  }
  await prune(THROTTLE_TABLE, (q) => q.where('reset_at', '<=', now.getTime()))
  if (config.audit.keepDays !== null) {
    const cutoff = new Date(now.getTime() - config.audit.keepDays * 86_400_000)
    await prune(AUDIT_TABLE, (q) => q.where('created_at', '<', cutoff))
  }
  return { removed }
}

/**
 * Runs `pruneAuthTables` an hour apart (the first run a minute after start) in this process,
 * logging what it removed; returns a function that stops it. `craft serve` calls it in one
 * process only (the first worker under `--workers`).
 */
export function schedulePruning(app: Application, options: { firstMs?: number; everyMs?: number } = {}): () => void {
  const run = async () => {
    try {
      // Its own read of the tables, each run: the throttle store creates its table after boot.
      const { removed } = await pruneAuthTables(connectionOf(app), app.make('auth').resolved, pruneRulesOf(app))
      const counts = Object.fromEntries(removed.map((r) => [r.table, r.rows]))
      if (removed.some((r) => r.rows > 0)) app.log.info('auth.pruned', counts)
    } catch (error) {
      app.log.warn('auth.prune_failed', { error })
    }
  }
  let timer = setTimeout(function tick() {
    void run().finally(() => {
      timer = setTimeout(tick, options.everyMs ?? 3_600_000)
      timer.unref()
    })
  }, options.firstMs ?? 60_000)
  timer.unref()
  return () => clearTimeout(timer)
}
