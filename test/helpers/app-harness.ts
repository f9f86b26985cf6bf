/**
 * Black-box harness: `craft new` into a temp folder, run its commands, serve it on 127.0.0.1 and
 * speak HTTP to it. Nothing here reaches into the framework's internals.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createTestDatabase, type TestDatabase } from './databases.js'

export const ROOT = resolve(import.meta.dirname, '..', '..')
export const CRAFT_BIN = join(ROOT, 'bin', 'craft.js')

export interface CommandResult {
  code: number
  stdout: string
  stderr: string
}

export function runNode(args: string[], options: { cwd?: string; env?: Record<string, string>; timeout?: number } = {}): CommandResult {
  const result = spawnSync(process.execPath, args, {
    cwd: options.cwd,
    env: { ...cleanEnv(), ...options.env },
    encoding: 'utf8',
    timeout: options.timeout ?? 60_000,
  })
  return { code: result.status ?? -1, stdout: result.stdout ?? '', stderr: result.stderr ?? '' }
}

/** The process environment without the test runner's and the database variables. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue
    if (k.startsWith('NODE_TEST') || k === 'NODE_OPTIONS') continue
    if (['DB_CONNECTION', 'DATABASE_URL', 'DB_DATABASE', 'APP_KEY', 'JWT_SECRET', 'SESSION_DRIVER', 'MAIL_DRIVER', 'APP_DEBUG', 'TRUST_PROXY', 'REDIS_URL', 'JWT_PREVIOUS_SECRETS', 'APP_PREVIOUS_KEYS', 'THROTTLE_DRIVER', 'APP_URL'].includes(k)) continue
    env[k] = v
  }
  return env
}

export interface TestApp {
  dir: string
  env: Record<string, string>
  craft(...args: string[]): CommandResult
  read(path: string): string
  write(path: string, contents: string): void
  edit(path: string, fn: (text: string) => string): void
  exists(path: string): boolean
  serve(extraEnv?: Record<string, string>, args?: string[]): Promise<Server>
  cleanup(): Promise<void>
}

export interface Server {
  url: string
  port: number
  output(): string
  /**
   * Resolves with the output once `test` holds for it, as each chunk arrives: a line the server
   * logs for a request can reach this process after the request's answer does. Rejects, with the
   * output, when the server exits first or `timeoutMs` passes.
   */
  waitForOutput(test: (output: string) => boolean, timeoutMs?: number): Promise<string>
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/**
 * `npm test` (scripts/test.mjs) names a folder for the run in TROWEL_TEST_TEMPLATES. The first test
 * that needs one runs the real `craft new` (and `craft auth` in a copy of its output) there once;
 * every later app of the run starts as a copy of that output with an APP_KEY of its own, the one
 * thing the two commands write at random. Without the variable each app runs the commands itself.
 */
const TEMPLATES = process.env.TROWEL_TEST_TEMPLATES

/** Runs `craft new` into `parent`/app and throws when it fails. */
function craftNew(parent: string): void {
  const created = runNode([CRAFT_BIN, 'new', join(parent, 'app')], { cwd: parent })
  if (created.code !== 0) throw new Error(`craft new failed: ${created.stderr}${created.stdout}`)
}

/**
 * The run's copy of `craft new`'s output ('new') or of it after `craft auth` ('auth'), made on
 * first use. Each is built in a folder of its own and renamed into place, so processes that race
 * to make one agree on whichever landed first. Null when the run keeps no templates.
 */
function template(name: 'new' | 'auth'): string | null {
  if (!TEMPLATES) return null
  const target = join(TEMPLATES, name)
  if (!existsSync(target)) {
    const building = mkdtempSync(join(TEMPLATES, `${name}-`))
    if (name === 'new') craftNew(building)
    else {
      cpSync(join(template('new')!, 'app'), join(building, 'app'), { recursive: true, verbatimSymlinks: true })
      const r = runNode(['craft', 'auth'], { cwd: join(building, 'app') })
      if (r.code !== 0) throw new Error(`craft auth failed: ${r.stderr}${r.stdout}`)
      writeFileSync(join(building, 'result.json'), JSON.stringify(r))
    }
    try {
      renameSync(building, target)
    } catch {
      rmSync(building, { recursive: true, force: true })
    }
  }
  return target
}

/** Replaces `parent`/app with a copy of a template's app, keeping the app's own APP_KEY. */
function copyTemplate(from: string, parent: string, appKey: string): void {
  const dir = join(parent, 'app')
  rmSync(dir, { recursive: true, force: true })
  cpSync(join(from, 'app'), dir, { recursive: true, verbatimSymlinks: true })
  const envFile = join(dir, '.env')
  writeFileSync(envFile, readFileSync(envFile, 'utf8').replace(/^APP_KEY=.*$/m, `APP_KEY=${appKey}`))
}

/** Every file and folder under `dir` with its size and modification time (symlinks not followed). */
function fingerprint(dir: string, prefix = ''): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const path = join(prefix, name)
    const stat = lstatSync(join(dir, path))
    out.push(`${path} ${stat.size} ${stat.mtimeMs}`)
    if (stat.isDirectory()) out.push(...fingerprint(dir, path))
  }
  return out
}

export async function newApp(options: { env?: Record<string, string> } = {}): Promise<TestApp> {
  const parent = mkdtempSync(join(tmpdir(), 'trowel-test-'))
  const dir = join(parent, 'app')
  const fresh = template('new')
  const appKey = 'base64:' + randomBytes(32).toString('base64')
  if (fresh) copyTemplate(fresh, parent, appKey)
  else craftNew(parent)
  // While the app's files are still exactly the template's copy (whatever ran or wrote since), a
  // plain `craft auth` can be a copy of the run's 'auth' template.
  const copied = fresh ? fingerprint(dir).join('\n') : null
  let database: TestDatabase | null = await createTestDatabase()
  const env = { ...database.env, ...options.env }
  const servers: Server[] = []
  const app: TestApp = {
    dir,
    env,
    craft: (...args) => {
      const plainAuth = copied !== null && args.length === 1 && args[0] === 'auth' && fingerprint(dir).join('\n') === copied
      const auth = plainAuth ? template('auth') : null
      if (!auth) return runNode(['craft', ...args], { cwd: dir, env: app.env })
      copyTemplate(auth, parent, appKey)
      return JSON.parse(readFileSync(join(auth, 'result.json'), 'utf8')) as CommandResult
    },
    read: (p) => readFileSync(join(dir, p), 'utf8'),
    write: (p, c) => writeFileSync(join(dir, p), c),
    edit: (p, fn) => writeFileSync(join(dir, p), fn(readFileSync(join(dir, p), 'utf8'))),
    exists: (p) => existsSync(join(dir, p)),
    async serve(extraEnv = {}, args = []) {
      const server = await serve(dir, { ...app.env, ...extraEnv }, args)
      servers.push(server)
      return server
    },
    async cleanup() {
      for (const s of servers) await s.stop()
      if (database) await database.drop()
      database = null
      rmSync(parent, { recursive: true, force: true })
    },
  }
  return app
}

export function serve(dir: string, env: Record<string, string>, args: string[] = []): Promise<Server> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['craft', 'serve', '--port', '0', ...args], { cwd: dir, env: { ...cleanEnv(), ...env } })
    let output = ''
    let settled = false
    // Who waits for the output to say something (Server.waitForOutput), told at each chunk.
    const watchers = new Set<() => void>()
    child.once('exit', () => watchers.forEach((w) => w()))
    const timer = setTimeout(() => fail(new Error(`server did not start in 30 s:\n${output}`)), 30_000)
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(error)
    }
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      watchers.forEach((w) => w())
      const match = /serving on (http:\/\/127\.0\.0\.1:(\d+))/.exec(output)
      if (match && !settled) {
        settled = true
        clearTimeout(timer)
        const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
        resolvePromise({
          url: match[1]!,
          port: Number(match[2]),
          output: () => output,
          waitForOutput(test, timeoutMs = 10_000) {
            return new Promise<string>((resolveOutput, rejectOutput) => {
              const check = () => {
                if (test(output)) done(() => resolveOutput(output))
                else if (child.exitCode !== null || child.signalCode !== null) done(() => rejectOutput(new Error(`the server exited before the output said so:\n${output}`)))
              }
              const giveUp = setTimeout(() => done(() => rejectOutput(new Error(`the output did not say so in ${timeoutMs} ms:\n${output}`))), timeoutMs)
              const done = (settle: () => void) => {
                clearTimeout(giveUp)
                watchers.delete(check)
                settle()
              }
              watchers.add(check)
              check()
            })
          },
          async stop(signal = 'SIGTERM') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal)
            return exited
          },
        })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => fail(new Error(`server exited with ${code} before listening:\n${output}`)))
  })
}

/** Adds `...Auth.routes()` to routes/web.ts and runs `craft auth`. */
export function installAuth(app: TestApp): void {
  const r = app.craft('auth')
  if (r.code !== 0) throw new Error(`craft auth failed: ${r.stderr}`)
  app.edit('routes/web.ts', (t) =>
    `import { Auth } from 'trowel/auth'\n` + t.replace('export const ROUTES = [', 'export const ROUTES = [\n  ...Auth.routes(),'),
  )
}

/** Runs `craft migrate` and throws when it fails (on SQLite under npm test, see migratedCopy). */
export function migrate(app: TestApp): void {
  const copy = migratedCopy(app)
  if (copy?.restored) return
  const r = app.craft('migrate')
  if (r.code !== 0) throw new Error(`craft migrate failed: ${r.stderr}${r.stdout}`)
  copy?.keep()
}

/**
 * On SQLite under `npm test`, the database `craft migrate` makes from nothing depends only on what
 * the command loads: `.env`, `config/database.ts` (which reads the `DB_*` and `DATABASE_*`
 * variables) and the migrations (by name and contents; the names are stored). About 100 apps of a
 * run migrate from nothing, most of them the same migrations. The first such database is kept in
 * the run's templates folder, named by a digest of those inputs (`.env` without the random
 * secrets `craft new` and `craft api:install` write: APP_KEY, JWT_SECRET, JWT_PRIVATE_KEY), and
 * later apps with the same digest start from a copy of it (about 0.6-0.8 s of CPU each, and a
 * process, saved). An app whose database already exists, or whose `config/database.ts` or
 * migrations import another file of the app, migrates for real, as does every app on PostgreSQL
 * and MariaDB. Null when nothing is kept.
 */
function migratedCopy(app: TestApp): { restored: boolean; keep(): void } | null {
  if (!TEMPLATES || app.env.DB_CONNECTION !== 'sqlite' || !app.env.DB_DATABASE) return null
  const database = resolve(app.dir, app.env.DB_DATABASE)
  if (existsSync(database)) return null
  const env = Object.entries(app.env).filter(([key]) => /^(DB|DATABASE)_/.test(key))
  const digest = createHash('sha256').update(JSON.stringify(env.sort()))
  for (const path of ['.env', 'config/database.ts', ...filesUnder(app.dir, 'databases')]) {
    if (!existsSync(join(app.dir, path))) return null
    let text = readFileSync(join(app.dir, path), 'utf8')
    if (path === '.env') text = text.replace(/^(APP_KEY|JWT_SECRET|JWT_PRIVATE_KEY)=.*$/gm, '')
    else if (/from\s+['"]\./.test(text)) return null
    digest.update(`\0${path}\0${text}`)
  }
  const kept = join(TEMPLATES, 'migrated', `${digest.digest('hex').slice(0, 32)}.sqlite`)
  if (existsSync(kept)) {
    copyFileSync(kept, database)
    return { restored: true, keep() {} }
  }
  return {
    restored: false,
    keep() {
      // A database still in use (a -wal file beside it) is not a finished one to copy.
      if (!existsSync(database) || existsSync(`${database}-wal`)) return
      mkdirSync(dirname(kept), { recursive: true })
      const building = `${kept}.${process.pid}-${randomBytes(4).toString('hex')}`
      copyFileSync(database, building)
      renameSync(building, kept)
    },
  }
}

/** The files under `dir`/`folder`, as sorted paths relative to `dir`. */
function filesUnder(dir: string, folder: string): string[] {
  if (!existsSync(join(dir, folder))) return []
  const out: string[] = []
  for (const entry of readdirSync(join(dir, folder), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = `${folder}/${entry.name}`
    if (entry.isDirectory()) out.push(...filesUnder(dir, path))
    else if (entry.isFile()) out.push(path)
  }
  return out
}
