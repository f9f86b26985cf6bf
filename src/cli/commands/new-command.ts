/**
 * @module cli/commands/new-command
 * `craft new <dir>`: writes a new app (the files of docs/getting-started.md, a fresh APP_KEY, the
 * starting migrations) and links this checkout of trowel into its `node_modules`, so
 * `node craft <command>` works at once, offline, with no install step.
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync, rmSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { basename, join, relative, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Command } from 'commander'
import { FRAMEWORK_ROOT } from '../../support/framework-root.js'
import { newAppMigrations } from '../../database/migration-stubs.js'
import { CliError } from '../cli-error.js'
import { colors, withProgress } from '../output.js'
import type { CliContext } from '../context.js'
import { spawnSync } from 'node:child_process'
import { writeFiles } from '../generator.js'

const RENAMES: Record<string, string> = {
  'env.stub': '.env',
  'gitignore.stub': '.gitignore',
  'package.json.stub': 'package.json',
  'tsconfig.json.stub': 'tsconfig.json',
}

export function generateAppKey(): string {
  return 'base64:' + randomBytes(32).toString('base64')
}

async function copyTree(from: string, to: string, vars: Record<string, string>, written: string[]): Promise<void> {
  for (const entry of (await readdir(from)).sort()) {
    const source = join(from, entry)
    if ((await stat(source)).isDirectory()) {
      await mkdir(join(to, entry), { recursive: true })
      await copyTree(source, join(to, entry), vars, written)
      continue
    }
    const target = join(to, RENAMES[entry] ?? entry)
    let text = await readFile(source, 'utf8')
    if (entry.endsWith('.stub')) text = text.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k: string) => vars[k] ?? '')
    await writeFile(target, text, entry === 'env.stub' ? { mode: 0o600 } : undefined)
    written.push(target)
  }
}

/** Links the framework checkout into `<app>/node_modules` (trowel and the craft bin). */
export function linkFramework(appDir: string): void {
  const modules = join(appDir, 'node_modules')
  mkdirSync(join(modules, '.bin'), { recursive: true })
  const link = join(modules, 'trowel')
  rmSync(link, { force: true, recursive: false })
  symlinkSync(FRAMEWORK_ROOT, link, 'junction')
  const bin = join(modules, '.bin', 'craft')
  rmSync(bin, { force: true })
  symlinkSync(join('..', 'trowel', 'bin', 'craft.js'), bin)
}

export async function createApp(dir: string, options: { force?: boolean; out: (line: string) => void }): Promise<string> {
  const target = resolve(dir)
  if (existsSync(target) && readdirSync(target).length > 0 && !options.force) {
    throw new CliError(`${dir} already exists and is not empty; choose another folder or use --force.`)
  }
  mkdirSync(target, { recursive: true })
  const name = basename(target).toLowerCase().replace(/[^a-z0-9-_.]/g, '-') || 'app'
  const written: string[] = []
  await withProgress(`Creating ${dir}`, async () => {
    await copyTree(join(FRAMEWORK_ROOT, 'stubs', 'app'), target, { name, appKey: generateAppKey() }, written)
    await chmod(join(target, 'craft'), 0o755)
    // The one layout every page extends (welcome, auth, account), the app's own to edit; an app
    // without it falls back to the framework's copy.
    await mkdir(join(target, 'templates', 'layouts'), { recursive: true })
    await copyTree(join(FRAMEWORK_ROOT, 'templates', 'layouts'), join(target, 'templates', 'layouts'), {}, written)
    const migrations = join(target, 'databases', 'migrations')
    await mkdir(migrations, { recursive: true })
    for (const m of newAppMigrations(new Date())) {
      await writeFile(join(migrations, m.fileName), m.contents)
      written.push(join(migrations, m.fileName))
    }
    await mkdir(join(target, 'storage', 'logs'), { recursive: true })
    await writeFile(join(target, 'storage', '.gitkeep'), '')
    linkFramework(target)
  })
  const c = colors()
  const shown = relative(process.cwd(), target) || '.'
  const cdPath = shown.startsWith('..') ? target : shown
  options.out(`${c.green('Created')} a Trowel app in ${cdPath} (${written.length} files)`)
  options.out('Next:')
  options.out(`  ${c.cyan(`cd ${cdPath}`)}`)
  // The order of the README and docs/getting-started.md: the pages first, so one migrate does all.
  options.out(`  ${c.cyan('node craft auth')}         login, register and account pages (docs/getting-started.md)`)
  options.out(`  ${c.cyan('node craft migrate')}`)
  options.out(`  ${c.cyan('node craft serve')}        then open http://localhost:8000`)
  return target
}

export function registerNewCommand(program: Command, ctx: CliContext): void {
  program
    .command('new')
    .argument('<dir>', 'the folder to create (must be empty or missing)')
    .summary('create a new Trowel app in <dir>')
    .description(
      'Create a new Trowel app in <dir> that uses this checkout of the framework: the files of docs/getting-started.md, a fresh APP_KEY in .env, ' +
        'the users, password_resets and login_tokens migrations, tests/example.test.ts, and node_modules/trowel linked to this checkout, ' +
        'so that node craft <command> works at once, offline, with no install step.',
    )
    .option('--force', 'write into a folder that is not empty')
    .option('--auth', 'also add the auth and account pages (as node craft auth does)')
    .option('--api', 'also turn the JWT API on (as node craft api:install --wire does)')
    .action(async (dir: string, opts: { force?: boolean; auth?: boolean; api?: boolean }) => {
      const target = await createApp(dir, { force: opts.force, out: opts.auth || opts.api ? () => undefined : ctx.out })
      if (!opts.auth && !opts.api) return
      // Loaded only for these options: `craft auth` reads every auth feature's files.
      if (opts.auth) {
        const { authFiles, authMigrations, wireAuthRoutes } = await import('./auth-command.js')
        writeFiles([...authFiles(target), ...authMigrations(target)], { root: target, out: () => undefined })
        const wired = wireAuthRoutes(target)
        if (wired !== 'added') throw new CliError(`Could not add the auth pages to routes/web.ts: ${wired === 'present' ? 'they are already there' : wired.refused}.`)
      }
      const installApi = opts.api ? (await import('./api-install-command.js')).installApi : undefined
      if (installApi && !installApi({ out: () => undefined }, target, { wire: true }).ok) {
        throw new CliError('Could not wire the JWT API into the new app (a file does not have the expected shape).')
      }
      // The new app's own craft migrates it: its .env and config, as \`node craft migrate\` would.
      const migrated = spawnSync(process.execPath, ['craft', 'migrate'], { cwd: target, encoding: 'utf8' })
      if (migrated.status !== 0) throw new CliError(`node craft migrate failed in ${dir}:\n${migrated.stderr || migrated.stdout}`)
      const c = colors()
      const shown = relative(process.cwd(), target) || '.'
      const cdPath = shown.startsWith('..') ? target : shown
      const parts = [opts.auth ? 'the auth and account pages' : null, opts.api ? 'the JWT API' : null].filter(Boolean).join(' and ')
      ctx.out(`${c.green('Created')} a Trowel app in ${cdPath} with ${parts}, migrated`)
      ctx.out('Next:')
      ctx.out(`  ${c.cyan(`cd ${cdPath}`)}`)
      ctx.out(`  ${c.cyan('node craft serve')}        then open http://localhost:8000${opts.auth ? '/register' : ''}`)
    })
}
