/**
 * @module cli/commands/test-command
 * `craft test [files...]`: runs the app's tests (`tests/**\/*.test.ts`, or the files given) with
 * Node's test runner, TypeScript loaded through the framework's tsx, so an app needs no
 * node_modules of its own. The app's `npm test` script is `node craft test`.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import type { Command } from 'commander'
import { CliError } from '../cli-error.js'
import type { CliContext } from '../context.js'

const TEST_FILE = /\.test\.(ts|mts|js|mjs)$/

function findTests(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) findTests(path, out)
    else if (TEST_FILE.test(name)) out.push(path)
  }
  return out
}

export function registerTestCommand(program: Command, ctx: CliContext): void {
  program
    .command('test')
    .argument('[files...]', 'test files to run (default: every tests/**/*.test.ts)')
    .summary("run the app's tests with node:test")
    .description(
      "Run the app's tests with Node's test runner: every tests/**/*.test.ts (also .mts, .js, .mjs), or the files given. " +
        "TypeScript is loaded through the framework's own tsx, so the app needs no node_modules of its own; the app's npm test script runs this command. " +
        'Each test file runs in its own process; TestClient from trowel/testing gives each one a fresh in-memory SQLite database (docs/testing.md).',
    )
    .option('--grep <pattern>', 'only tests whose name matches this regular expression (--test-name-pattern)')
    .option('--concurrency <n>', 'test files run at once (default: node:test\'s)')
    .action(async (files: string[], opts: { grep?: string; concurrency?: string }) => {
      const root = ctx.requireApp()
      const selected = files.length > 0 ? files.map((f) => resolve(f)) : findTests(join(root, 'tests'))
      for (const file of selected) if (!existsSync(file)) throw new CliError(`${relative(root, file)} does not exist.`)
      if (selected.length === 0) throw new CliError('No tests: put files named *.test.ts in tests/ (see docs/testing.md).')
      if (opts.concurrency !== undefined && !/^[1-9]\d*$/.test(opts.concurrency)) {
        throw new CliError(`--concurrency must be a whole number from 1, not "${opts.concurrency}".`)
      }
      const args = ['--import', import.meta.resolve('tsx'), '--test']
      if (opts.grep !== undefined) args.push(`--test-name-pattern=${opts.grep}`)
      if (opts.concurrency !== undefined) args.push(`--test-concurrency=${opts.concurrency}`)
      args.push(...selected.map((f) => relative(root, f) || f))
      const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' })
      const forward = (signal: NodeJS.Signals) => child.kill(signal)
      process.on('SIGINT', forward)
      process.on('SIGTERM', forward)
      const code = await new Promise<number>((done) => child.on('exit', (c, signal) => done(c ?? (signal ? 1 : 0))))
      process.off('SIGINT', forward)
      process.off('SIGTERM', forward)
      if (code !== 0) process.exit(code)
    })
}
