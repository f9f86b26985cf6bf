/**
 * @module cli/commands/migrate-commands
 * `craft migrate`, `migrate:rollback`, `migrate:status`, `migrate:refresh` (the generator,
 * `craft migration`, is `migration-command.ts`). These load only `.env` and
 * `config/database.ts`, so a broken route or controller never stops you from migrating.
 */
import type { Command } from 'commander'
import { loadEnvironment } from '../../foundation/bootstrap.js'
import { importAppModule } from '../../foundation/app-modules.js'
import { findModule } from '../../foundation/module-finder.js'
import type { DatabaseManager } from '../../database/database-manager.js'
import { databaseManagerFor } from '../../database/database-provider.js'
import { Migrator } from '../../database/migrator.js'
import type { CliContext } from '../context.js'
import { colors, withProgress, type Colors } from '../output.js'

async function withMigrator<T>(root: string, fn: (migrator: Migrator, manager: DatabaseManager) => Promise<T>): Promise<T> {
  loadEnvironment(root)
  const file = findModule(`${root}/config/database`)
  const config = file ? (await importAppModule(file, 'config/database.ts')).DATABASES : undefined
  const manager = databaseManagerFor(config, root)
  try {
    await manager.check()
    return await fn(new Migrator(manager.connection(), `${root}/databases/migrations`), manager)
  } finally {
    await manager.close()
  }
}

/**
 * The action of `migrate` and `migrate:rollback`: one step of the migrator under a progress line,
 * then each migration it ran or undid, after `label` (or `none` when there was none).
 */
function migratorStep(ctx: CliContext, progress: string, step: (migrator: Migrator) => Promise<string[]>, none: string, label: (c: Colors) => string): () => Promise<void> {
  return async () => {
    const names = await withProgress(progress, () => withMigrator(ctx.requireApp(), step))
    if (names.length === 0) ctx.out(none)
    for (const name of names) ctx.out(`${label(colors())} ${name}`)
  }
}

export function registerMigrateCommands(program: Command, ctx: CliContext): void {
  program
    .command('migrate')
    .description('run the migrations that have not run yet')
    .action(migratorStep(ctx, 'Migrating', (m) => m.run(), 'Nothing to migrate.', (c) => c.green('Migrated:')))

  program
    .command('migrate:rollback')
    .description('undo the last batch of migrations')
    .action(migratorStep(ctx, 'Rolling back', (m) => m.rollback(), 'Nothing to roll back.', (c) => c.yellow('Rolled back:')))

  program
    .command('migrate:status')
    .description('list migrations and whether each has run')
    .action(async () => {
      const rows = await withMigrator(ctx.requireApp(), (m) => m.status())
      if (rows.length === 0) ctx.out('No migrations.')
      const c = colors()
      for (const row of rows) ctx.out(`${row.ran ? c.green('Ran    ') : c.yellow('Pending')}  ${row.batch ?? '-'}  ${row.name}`)
    })

  program
    .command('migrate:refresh')
    .description('roll back every migration, then run them all again')
    .action(async () => {
      const result = await withProgress('Refreshing migrations', () => withMigrator(ctx.requireApp(), (m) => m.refresh()))
      const c = colors()
      for (const name of result.rolledBack) ctx.out(`${c.yellow('Rolled back:')} ${name}`)
      for (const name of result.ran) ctx.out(`${c.green('Migrated:')} ${name}`)
    })
}
