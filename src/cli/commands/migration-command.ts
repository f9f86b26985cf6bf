/**
 * @module cli/commands/migration-command
 * `craft migration <name> [--table T | --create T]`: writes
 * `databases/migrations/<YYYY_MM_DD_HHMMSS>_<name>.ts`, empty or, for a name of one of the
 * framework's own tables, with its columns. A generator: it loads neither the database layer nor
 * the app, and the auth features' migration names only when the name could be one of them.
 */
import { existsSync, readdirSync } from 'node:fs'
import type { Command } from 'commander'
import { migrationFileName, nextMigrationDate, renderMigrationStub } from '../../database/migration-stubs.js'
import { CliError } from '../cli-error.js'
import { pascalCase, readStub, writeFiles } from '../generator.js'
import type { CliContext } from '../context.js'
import { PERSONAL_TOKENS_MIGRATION } from './personal-tokens-migration.js'

/** Migration names that write the framework's own table definition instead of an empty one. */
async function frameworkMigrations(): Promise<string[]> {
  const { authMigrationNames } = await import('./auth-command.js')
  return [PERSONAL_TOKENS_MIGRATION, 'add_token_epoch_to_users', 'create_api_tokens_table', 'create_organization_tables', ...authMigrationNames()]
}

export function registerMigrationCommand(program: Command, ctx: CliContext): void {
  program
    .command('migration')
    .argument('<name>', 'snake_case name, e.g. add_api_token_users')
    .description('create databases/migrations/<YYYY_MM_DD_HHMMSS>_<name>.ts')
    .option('--table <table>', 'the migration alters this table')
    .option('--create <table>', 'the migration creates this table')
    .option('--force', 'overwrite an existing file')
    .action(async (name: string, opts: { table?: string; create?: string; force?: boolean }) => {
      const root = ctx.requireApp()
      if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) throw new CliError(`"${name}" is not a valid migration name (letters, digits and _).`)
      if (opts.table && opts.create) throw new CliError('Use either --table or --create, not both.')
      for (const t of [opts.table, opts.create]) if (t !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(t)) throw new CliError(`"${t}" is not a valid table name.`)
      // The framework's own tables (e.g. create_auth_events_table) come with their columns.
      const own = !opts.table && (await frameworkMigrations()).includes(name) ? readStub(`migrations/${name}.ts`) : undefined
      const contents = own ?? renderMigrationStub({ className: pascalCase(name), table: opts.create ?? opts.table, create: Boolean(opts.create) })
      const folder = `${root}/databases/migrations`
      const date = nextMigrationDate(existsSync(folder) ? readdirSync(folder) : [])
      writeFiles([{ path: `${folder}/${migrationFileName(name, date)}`, contents }], { force: opts.force, root, out: ctx.out })
    })
}
