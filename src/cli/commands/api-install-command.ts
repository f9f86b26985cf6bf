/**
 * @module cli/commands/api-install-command
 * `craft api:install`: writes `config/api.ts` (refusing to overwrite without `--force`) and a new
 * 64-byte random `JWT_SECRET` (base64url) in `.env` unless one exists. Prints where things went,
 * never the secret. With `--wire` it also makes every other step of turning the API on (see
 * cli/wiring/api-wiring), printing each file it changed.
 */
import { randomBytes } from 'node:crypto'
import type { Command } from 'commander'
import { readEnvFile, setEnvValue } from '../env-file.js'
import { readStub, writeFiles } from '../generator.js'
import type { CliContext } from '../context.js'
import { existsSync } from 'node:fs'
import { colors } from '../output.js'
import { wireApi } from '../wiring/api-wiring.js'
import type { EditOutcome } from '../wiring/file-edits.js'

/** One line per step of the wiring: what changed, what was already there, what was refused. */
export function reportWiring(ctx: Pick<CliContext, 'out'>, outcomes: EditOutcome[]): void {
  const c = colors()
  for (const o of outcomes) {
    if (o.result === 'changed') ctx.out(`${c.green('Updated')} ${o.file}`)
    else if (o.result === 'present') ctx.out(c.dim(`Already done: ${o.file}`))
    else if (o.result === 'refused') ctx.out(c.yellow(`Not changed: ${o.file} (${o.why}); make this step by hand (docs/jwt-api.md)`))
  }
}

export function registerApiInstallCommand(program: Command, ctx: CliContext): void {
  program
    .command('api:install')
    .description('create config/api.ts and a JWT_SECRET in .env (an existing secret is kept)')
    .option('--force', 'rewrite config/api.ts (JWT_SECRET is never replaced)')
    .option('--wire', 'also make every other step of turning the API on: ApiProvider, routes/api.ts, the Kernel stacks, the User model, the token migration, Api.routes()')
    .action((opts: { force?: boolean; wire?: boolean }) => {
      const ok = installApi(ctx, ctx.requireApp(), opts)
      if (!ok) process.exitCode = 1
      else if (opts.wire) ctx.out('Then run: node craft migrate')
    })
}

/**
 * `api:install`'s work: the JWT_SECRET, config/api.ts, and with `wire` every other step. False
 * when a wiring step was refused (its file no longer has the expected shape).
 */
export function installApi(ctx: Pick<CliContext, 'out'>, root: string, opts: { force?: boolean; wire?: boolean }): boolean {
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
  const config = `${root}/config/api.ts`
  if (opts.wire && existsSync(config) && !opts.force) ctx.out(colors().dim('Already done: config/api.ts'))
  else writeFiles([{ path: config, contents: readStub('api/api.ts.stub') }], { force: opts.force, root, out: ctx.out })
  if (!opts.wire) return true
  const outcomes = wireApi(root)
  reportWiring(ctx, outcomes)
  return !outcomes.some((o) => o.result === 'refused')
}
