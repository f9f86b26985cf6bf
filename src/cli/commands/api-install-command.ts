/**
 * @module cli/commands/api-install-command
 * `craft api:install`: writes `config/api.ts` (refusing to overwrite without `--force`) and a new
 * 64-byte random `JWT_SECRET` (base64url) in `.env` unless one exists. Prints where things went,
 * never the secret.
 */
import { randomBytes } from 'node:crypto'
import type { Command } from 'commander'
import { readEnvFile, setEnvValue } from '../env-file.js'
import { readStub, writeFiles } from '../generator.js'
import type { CliContext } from '../context.js'

export function registerApiInstallCommand(program: Command, ctx: CliContext): void {
  program
    .command('api:install')
    .description('create config/api.ts and a JWT_SECRET in .env (an existing secret is kept)')
    .option('--force', 'rewrite config/api.ts (JWT_SECRET is never replaced)')
    .action((opts: { force?: boolean }) => {
      const root = ctx.requireApp()
      // The secret first: a missing one is added even when config/api.ts exists and the write
      // below refuses (without --force) to overwrite it.
      const envPath = `${root}/.env`
      const existing = readEnvFile(envPath).JWT_SECRET
      if (existing) {
        ctx.out('JWT_SECRET already set in .env; kept it.')
      } else {
        setEnvValue(envPath, 'JWT_SECRET', randomBytes(64).toString('base64url'))
        ctx.out('JWT_SECRET (64 random bytes) written to .env')
      }
      writeFiles([{ path: `${root}/config/api.ts`, contents: readStub('api/api.ts.stub') }], { force: opts.force, root, out: ctx.out })
    })
}
