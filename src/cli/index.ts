/**
 * @module cli
 * `craft`: the command line. The framework's `bin/craft.js` and every app's `craft` file call
 * `main()`. Errors are one line on stderr with a non-zero exit; `APP_DEBUG=true` adds the stack of
 * unexpected errors (not of the framework's own one-line messages).
 */
import { readFileSync, realpathSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { FRAMEWORK_ROOT } from '../support/framework-root.js'
import { Command, CommanderError } from 'commander'
import { findModule } from '../foundation/module-finder.js'
import { CliError } from './cli-error.js'
import { FrameworkError } from '../foundation/framework-error.js'
import { HttpError } from '../http/http-error.js'
import { notInApp, type CliContext } from './context.js'
import { colors, formatError } from './output.js'
import { commandsFor } from './command-list.js'
import { registerTypeScript } from './typescript-loader.js'
import { loadAppAsJavaScript } from './app-javascript.js'
import { prepareAppModulesWith } from '../foundation/app-modules.js'
import { keepYoungGenerationSmall } from '../foundation/young-generation.js'

export { registerTypeScript }
export { CliError } from './cli-error.js'
export type { CliContext } from './context.js'

function isAppRoot(dir: string): boolean {
  return findModule(resolve(dir, 'Kernel')) !== undefined
}

/** The framework's own version, from its package.json. */
function frameworkVersion(): string {
  const file = join(FRAMEWORK_ROOT, 'package.json')
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
}

/**
 * The `craft` program. With `only` (the command being run), just that command's module is loaded
 * when it is one (cli/command-list); otherwise every command is.
 */
export async function buildProgram(ctx: CliContext, only?: string): Promise<Command> {
  const program = new Command('craft')
  program
    .description('Trowel command line')
    .usage('<command> [options]')
    .version(frameworkVersion(), '-V, --version', 'print the version of Trowel')
    .helpCommand(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
      // One line: commander's message plus its "(Did you mean ...?)" suggestion when it has one
      // (a command one or two edits away); without one, an unknown command points to the list.
      outputError: (s, write) => {
        let line = s.split('\n').map((l) => l.trim()).filter(Boolean).join(' ')
        if (/^error: unknown command/.test(line) && !/Did you mean/.test(line)) line += ' Run "node craft --help" to see every command.'
        write(line.replace(/^error:/, colors(process.stderr).red('error:')) + '\n')
      },
    })
  for (const entry of commandsFor(only)) for (const register of await entry.load()) register(program, ctx)
  for (const cmd of program.commands) cmd.exitOverride()
  return program
}

export async function main(argv: string[] = process.argv, options: { appRoot?: string | null } = {}): Promise<void> {
  // Before the app is loaded, so that start-up does not grow it either (foundation/young-generation).
  if (argv[2] === 'serve') keepYoungGenerationSmall()
  // `node craft routes:list | head`: a reader that goes away is not an error worth a stack trace.
  // A server whose output pipe closes stops with 1, so that a supervisor sees a failure.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(argv[2] === 'serve' ? 1 : 0)
    throw error
  })
  let appRoot = options.appRoot ?? null
  if (appRoot === null && isAppRoot(process.cwd())) appRoot = process.cwd()
  if (appRoot) {
    appRoot = realpathSync(appRoot)
    // The app's TypeScript is compiled to JavaScript (cached under storage/.trowel/js) when a
    // command first imports one of its files; tsx only when that cannot be done.
    prepareAppModulesWith(loadAppAsJavaScript.bind(null, appRoot))
  }
  const ctx: CliContext = {
    appRoot,
    out: (line) => process.stdout.write(line + '\n'),
    requireApp: () => appRoot ?? notInApp(),
    boot: async (mode) => {
      const root = appRoot ?? notInApp()
      const { createApplication } = await import('../app/create-application.js')
      return createApplication(root, { mode })
    },
  }
  const program = await buildProgram(ctx, argv[2])
  try {
    if (argv.length <= 2) {
      program.outputHelp()
      return
    }
    await program.parseAsync(argv)
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version') return
      process.exit(error.exitCode || 1)
    }
    process.stderr.write(`${colors(process.stderr).red('error:')} ${formatError(error, appRoot)}\n`)
    // APP_DEBUG=true (a new app's default) adds the stack of unexpected errors only: the framework's
    // own errors (a missing APP_KEY, a database that is down, a syntax error) are one line that says what to fix.
    const expected = error instanceof CliError || error instanceof FrameworkError || error instanceof HttpError
    if (String(process.env.APP_DEBUG).toLowerCase() === 'true' && error instanceof Error && !expected) {
      process.stderr.write(`${error.stack}\n`)
    }
    // Exit now: a failed boot may have opened pools or sockets that would keep the process alive.
    process.exit(error instanceof CliError ? error.exitCode : 1)
  }
}
