/**
 * @module cli/commands/key-generate-command
 * `craft key:generate`: (re)generates APP_KEY in `.env` (32 random bytes, `base64:` prefixed).
 */
import type { Command } from 'commander'
import { setEnvValue } from '../env-file.js'
import type { CliContext } from '../context.js'
import { generateAppKey } from './new-command.js'

export function registerKeyGenerateCommand(program: Command, ctx: CliContext): void {
  program
    .command('key:generate')
    .description('generate a new APP_KEY in .env (signs and encrypts cookies; logs everybody out)')
    .action(() => {
      const root = ctx.requireApp()
      setEnvValue(`${root}/.env`, 'APP_KEY', generateAppKey())
      ctx.out('APP_KEY set in .env')
    })
}
