/**
 * @module cli/commands/auth-events-command
 * `craft auth:events [--user EMAIL] [--type T] [--since ISO] [--limit N] [--json]`: the audit
 * log, oldest first, one line per event (or a JSON array).
 */
import type { Command } from 'commander'
import { connectionOf } from '../../database/app-database.js'
import { AUDIT_TABLE } from '../../auth/audit/audit-log.js'
import { queryAuditEvents, type AuditFilter } from '../../auth/audit/audit-query.js'
import { CliError } from '../cli-error.js'
import type { CliContext } from '../context.js'

interface Options {
  user?: string
  type?: string
  since?: string
  limit?: string
  json?: boolean
}

export function registerAuthEventsCommand(program: Command, ctx: CliContext): void {
  program
    .command('auth:events')
    .description('print the audit log (auth_events), oldest first')
    .option('--user <email>', "only this user's events")
    .option('--type <type>', 'only this event type, e.g. login_failed or auth:login_failed')
    .option('--since <iso>', 'only events at or after this date or time, e.g. 2026-11-16 or 2026-11-16T08:00:00Z')
    .option('--limit <n>', 'at most this many events')
    .option('--json', 'print a JSON array instead of lines')
    .action(async (opts: Options) => {
      const filter: AuditFilter = {}
      if (opts.since !== undefined) {
        const since = new Date(opts.since)
        if (!/^\d{4}-\d{2}-\d{2}/.test(opts.since) || Number.isNaN(since.getTime())) throw new CliError(`--since must be an ISO date or time (2026-11-16 or 2026-11-16T08:00:00Z), not "${opts.since}".`)
        filter.since = since
      }
      if (opts.limit !== undefined) {
        if (!/^[1-9]\d*$/.test(opts.limit)) throw new CliError(`--limit must be a whole number from 1, not "${opts.limit}".`)
        filter.limit = Number(opts.limit)
      }
      if (opts.type !== undefined) filter.type = opts.type
      const app = await ctx.boot('console')
      try {
        if (!(await connectionOf(app).schema.hasTable(AUDIT_TABLE))) throw new CliError(`There is no ${AUDIT_TABLE} table yet: run "node craft auth" (it adds the migration), then "node craft migrate".`)
        const emails = new Map<number, string>()
        if (opts.user !== undefined) {
          const user = await app.make('auth').model?.findForAuth(opts.user)
          if (!user) throw new CliError(`No user with the address "${opts.user}".`)
          filter.userId = user.getKey()
        }
        const events = await queryAuditEvents(connectionOf(app), filter)
        if (opts.json) {
          ctx.out(JSON.stringify(events, null, 2))
          return
        }
        const model = app.make('auth').model
        for (const id of new Set(events.map((e) => e.user_id).filter((id): id is number => id !== null))) {
          const user = await model?.find(id)
          if (user) emails.set(id, String(user[model.authColumn ?? 'email']))
        }
        for (const e of events) {
          const who = e.user_id === null ? '-' : `${emails.get(e.user_id) ?? '(deleted)'}#${e.user_id}`
          const details = Object.entries(e.details).map(([k, v]) => `${k}=${String(v)}`).join(' ')
          ctx.out([e.created_at, e.type.padEnd(30), who, e.ip ?? '-', details].join('  ').trimEnd())
        }
        if (events.length === 0) ctx.out('No events match.')
      } finally {
        await app.shutdown()
      }
    })
}
