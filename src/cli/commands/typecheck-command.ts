/**
 * @module cli/commands/typecheck-command
 * `craft typecheck`: type-checks the app against Trowel's types by running the TypeScript
 * compiler in the app's folder with the app's `tsconfig.json` and `--noEmit`. `craft serve` and
 * `craft test` only strip types (esbuild, tsx), so a type error shows up here, not there.
 * The compiler is the app's own `typescript` when it has one, else the one next to trowel; with
 * neither, a one-line error says how to install it. Errors are printed as `file:line:column`.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Command } from 'commander'
import { CliError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { colors } from '../output.js'

/** The path of `tsc`'s script: from the app's node_modules first, then from trowel's. */
export function findTsc(appRoot: string): string | undefined {
  const from = [join(appRoot, 'package.json'), import.meta.url]
  for (const base of from) {
    try {
      const pkg = createRequire(base).resolve('typescript/package.json')
      const tsc = join(dirname(pkg), 'bin', 'tsc')
      if (existsSync(tsc)) return tsc
    } catch {
      // Not installed there: try the next place.
    }
  }
  return undefined
}

/** `app/x.ts(3,7): error TS2322: ...` (tsc without --pretty) → `app/x.ts:3:7 - error TS2322: ...`. */
export function formatDiagnostics(output: string): string {
  return output.replace(/^(\S[^\n(]*)\((\d+),(\d+)\): (error|warning)/gm, '$1:$2:$3 - $4')
}

export function registerTypecheckCommand(program: Command, ctx: CliContext): void {
  program
    .command('typecheck')
    .summary("type-check the app's TypeScript (tsc --noEmit)")
    .description(
      "Type-check the app against Trowel's types: runs the TypeScript compiler (tsc) in the app's folder with its tsconfig.json and --noEmit. " +
        'serve and test only strip the types, so a type error is reported here, not there. ' +
        "The compiler is the app's own typescript package when it has one, else the one installed with trowel; with neither, install it with npm install --save-dev typescript. " +
        'Each error is printed as file:line:column - error TSxxxx: message; the exit code is 1 when there is any. The app\'s npm run typecheck script runs this command.',
    )
    .action(async () => {
      const root = ctx.requireApp()
      const config = join(root, 'tsconfig.json')
      if (!existsSync(config)) throw new CliError('No tsconfig.json in the app: create one (craft new writes it) to say what to type-check.')
      const tsc = findTsc(root)
      if (!tsc) throw new CliError('TypeScript is not installed: run "npm install --save-dev typescript" in the app, then "node craft typecheck" again.')
      const c = colors()
      const child = spawn(process.execPath, [tsc, '-p', config, '--noEmit', '--pretty', 'false'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
      const code = await new Promise<number>((done) => {
        child.on('error', () => done(-1))
        child.on('exit', (c, signal) => done(c ?? (signal ? 1 : 0)))
      })
      if (code === -1) throw new CliError(`Could not run ${tsc}.`)
      const text = formatDiagnostics(output).trimEnd()
      if (text !== '') ctx.out(text)
      if (code === 0) {
        ctx.out(c.green('No type errors.'))
        return
      }
      const errors = (text.match(/\berror TS\d+/g) ?? []).length
      ctx.out(c.red(errors > 0 ? `Found ${errors} type error${errors === 1 ? '' : 's'}.` : 'tsc failed.'))
      process.exit(1)
    })
}
