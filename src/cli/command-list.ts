/**
 * @module cli/command-list
 * Every `craft` command, in the order `craft --help` lists them, each with the module that
 * defines it, imported only when needed: `craft serve` loads the serve command alone (not the
 * generators, the migrator's command-line side or the OpenAPI writer), which keeps a server's
 * heap smaller. `--version` loads none; help, and a name that is not listed (commander then
 * suggests the nearest), load all.
 */
import type { Command } from 'commander'
import type { CliContext } from './context.js'
import { FEATURE_COMMANDS } from '../auth/features/commands.js'

type Register = (program: Command, ctx: CliContext) => void

export interface CommandEntry {
  /** The command names the module registers. */
  names: readonly string[]
  load: () => Promise<Register[]>
}

export const COMMANDS: readonly CommandEntry[] = [
  { names: ['new'], load: async () => [(await import('./commands/new-command.js')).registerNewCommand] },
  { names: ['serve'], load: async () => [(await import('./commands/serve-command.js')).registerServeCommand] },
  { names: ['auth'], load: async () => [(await import('./commands/auth-command.js')).registerAuthCommand] },
  { names: ['auth:events'], load: async () => [(await import('./commands/auth-events-command.js')).registerAuthEventsCommand] },
  { names: ['auth:prune'], load: async () => [(await import('./commands/auth-prune-command.js')).registerAuthPruneCommand] },
  { names: ['api:install'], load: async () => [(await import('./commands/api-install-command.js')).registerApiInstallCommand] },
  { names: ['token:create'], load: async () => [(await import('./commands/token-create-command.js')).registerTokenCreateCommand] },
  { names: ['openapi'], load: async () => [(await import('./commands/openapi-command.js')).registerOpenApiCommand] },
  { names: ['client'], load: async () => [(await import('./commands/client-command.js')).registerClientCommand] },
  { names: ['migration'], load: async () => [(await import('./commands/migration-command.js')).registerMigrationCommand] },
  {
    names: ['migrate', 'migrate:rollback', 'migrate:status', 'migrate:refresh'],
    load: async () => [(await import('./commands/migrate-commands.js')).registerMigrateCommands],
  },
  { names: ['controller'], load: async () => [(await import('./commands/controller-command.js')).registerControllerCommand] },
  { names: ['routes:list'], load: async () => [(await import('./commands/routes-list-command.js')).registerRoutesListCommand] },
  { names: ['key:generate'], load: async () => [(await import('./commands/key-generate-command.js')).registerKeyGenerateCommand] },
  { names: ['test'], load: async () => [(await import('./commands/test-command.js')).registerTestCommand] },
  { names: ['typecheck'], load: async () => [(await import('./commands/typecheck-command.js')).registerTypecheckCommand] },
  // The auth features' own, each listed in its folder (auth/features/commands.ts).
  ...(FEATURE_COMMANDS as readonly CommandEntry[]),
]

/**
 * The entries to load for `craft <name>`: its own when it is a command's name, none for
 * `--version`/`-V` (it prints the version and stops), else every one.
 */
export function commandsFor(name: string | undefined): readonly CommandEntry[] {
  if (name === '--version' || name === '-V') return []
  const own = name === undefined ? undefined : COMMANDS.find((c) => c.names.includes(name))
  return own ? [own] : COMMANDS
}
