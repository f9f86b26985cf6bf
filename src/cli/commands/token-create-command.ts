/**
 * @module cli/commands/token-create-command
 * `craft token:create <email> --name N [--abilities a,b] [--expires 90d|12h|30m]`: creates a personal
 * access token for the user with that address and prints it, once: the token alone on stdout (so
 * `TOKEN=$(node craft token:create ...)` works), what it is on stderr. Only its SHA-256 is stored.
 * `--expires` takes a unit (`d`, `h`, `m`), as the `/account/tokens` form takes days; a bare
 * number stays minutes. An unknown address, a bad option or a missing table: one line on stderr
 * and exit 1.
 */
import type { Command } from 'commander'
import { PERSONAL_TOKENS_TABLE } from '../../api/personal-tokens/repository.js'
import { issuePersonalToken } from '../../api/personal-tokens/issue.js'
import { parseDuration } from '../../api/personal-tokens/token-expiry.js'
import { CliError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { PERSONAL_TOKENS_MIGRATION } from './personal-tokens-migration.js'

interface Options {
  name: string
  abilities?: string
  expires?: string
}

export function registerTokenCreateCommand(program: Command, ctx: CliContext): void {
  program
    .command('token:create')
    .summary('create a personal access token for a user and print it (once: only its hash is stored)')
    .description(
      'Create a personal access token (trw_<id>_<secret><checksum>) for the user with that e-mail address and print it once: the token alone on stdout, ' +
        'what it is on stderr, so TOKEN=$(node craft token:create ...) works. Only its SHA-256 is stored; it is accepted by the api stack as a Bearer token ' +
        'and listed (and revocable) on /account/tokens. Without --abilities it has none: it can call API routes that ask for no ability (ability:<name>). ' +
        'Without --expires it never expires; --expires 90d matches the page\'s default of 90 days. ' +
        'An unknown address, a bad option or a missing personal_access_tokens table exits 1 with a message.',
    )
    .argument('<email>', "the user's e-mail address")
    .requiredOption('--name <name>', 'what the token is for, e.g. "CI deploy"')
    .option('--abilities <list>', 'comma-separated abilities, e.g. posts:read,posts:write (* for all; default none)')
    .option('--expires <duration>', 'how long until it expires: 90d, 12h or 30m (a bare number is minutes; default: never)')
    .action(async (email: string, opts: Options) => {
      let expiresIn: number | null = null
      if (opts.expires !== undefined) {
        try {
          expiresIn = parseDuration(opts.expires)
        } catch (error) {
          throw new CliError((error as Error).message)
        }
      }
      const app = await ctx.boot('console')
      // stdout carries the token alone: this command's log lines go to stderr.
      app.log.sink = (line) => process.stderr.write(line + '\n')
      try {
        if (!app.has('api.personal_tokens')) {
          throw new CliError('Personal access tokens need the JWT API: add ApiProvider to PROVIDERS in config/providers.ts (node craft api:install --wire does it).')
        }
        const repository = app.make('api.personal_tokens')
        if (!(await repository.db.schema.hasTable(PERSONAL_TOKENS_TABLE))) {
          throw new CliError(`There is no ${PERSONAL_TOKENS_TABLE} table yet: run "node craft migration ${PERSONAL_TOKENS_MIGRATION}", then "node craft migrate".`)
        }
        const model = app.make('auth').model
        const user = model ? await model.findForAuth(email) : null
        if (!user) throw new CliError(`No user with the address "${email}".`)
        let created
        try {
          created = await issuePersonalToken(repository, user, opts.name, { abilities: opts.abilities ?? [], expiresIn }, { emitter: app.events })
        } catch (error) {
          if (error instanceof RangeError) throw new CliError(error.message)
          throw error
        }
        const abilities = created.abilities.length ? created.abilities.join(', ') : 'none'
        const expires = created.expiresAt ? created.expiresAt.toISOString() : 'never'
        process.stderr.write(`Created token "${created.name}" (#${created.id}) for ${email}; abilities: ${abilities}; expires: ${expires}.\n`)
        process.stderr.write('Copy it now: it is not stored and will not be shown again.\n')
        ctx.out(created.token)
      } finally {
        await app.shutdown()
      }
    })
}
