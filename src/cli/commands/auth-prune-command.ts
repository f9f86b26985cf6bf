/**
 * @module cli/commands/auth-prune-command
 * `craft auth:prune`: deletes expired logins, reset links, throttle windows and old audit rows,
 * and prints what it removed.
 */
import type { Command } from 'commander'
import { connectionOf } from '../../database/app-database.js'
import { pruneAuthTables, pruneRulesOf } from '../../auth/prune.js'
import { withConsoleApp, type CliContext } from '../context.js'

export function registerAuthPruneCommand(program: Command, ctx: CliContext): void {
  program
    .command('auth:prune')
    .description('delete expired logins, reset links, throttle windows and audit rows older than GUARDS.audit.keep_days')
    .action(() =>
      withConsoleApp(ctx, async (app) => {
        const { removed } = await pruneAuthTables(connectionOf(app), app.make('auth').resolved, pruneRulesOf(app))
        for (const { table, rows } of removed) ctx.out(`${table}: ${rows} removed`)
        if (removed.length === 0) ctx.out('Nothing to prune: none of the auth tables exist yet (node craft migrate).')
      }),
    )
}
