/**
 * @module cli/commands/serve-command
 * `craft serve [--host 127.0.0.1] [--port 8000] [--workers N|auto] [--watch]`: boots the app,
 * listens and prints the URL. On SIGTERM/SIGINT it stops accepting, finishes in-flight requests,
 * lets the mails they handed over be sent, closes pools. With `--workers` N > 1 the primary forks N workers (node:cluster) sharing the
 * port, restarts a worker that dies, and on SIGTERM stops them one by one. With `--watch` this
 * process only supervises: it runs the server in a child process and restarts it (debounced,
 * 200 ms) when a source file of the app changes (see `watchAndServe`).
 */
import { appUrl as appUrlOf } from '../../foundation/config-files.js'
import cluster from 'node:cluster'
import { spawn, type ChildProcess } from 'node:child_process'
import { watch } from 'node:fs'
import { availableParallelism } from 'node:os'
import type { Command } from 'commander'
import { startServer } from '../../http/server.js'
import { loadEnvironment } from '../../foundation/bootstrap.js'
import { schedulePruning } from '../../auth/prune.js'
import { CliError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { colors } from '../output.js'
import { appModulesReady } from '../../foundation/app-modules.js'
import { metricsToken } from '../../observability/metrics-token.js'
import { passkeyNotice, serveNotices } from '../serve-notices.js'
import type { Application } from '../../foundation/application.js'

interface ServeOptions {
  host: string
  port?: string
  workers?: string
  watch?: boolean
}

/** Files whose change restarts `serve --watch`: sources, templates, JSON and `.env`. */
const WATCHED = /(\.([cm]?[jt]s|json|html|njk)|^\.env|[\\/]\.env)$/
/** Folders never watched: dependencies, runtime data, VCS, the app's tests. */
const IGNORED = /^(node_modules|storage|\.git|tests|dist|coverage)([\\/]|$)|[\\/]node_modules[\\/]/

/** True when a change to `file` (relative to the app root) should restart the server. */
export function shouldRestart(file: string): boolean {
  return WATCHED.test(file) && !IGNORED.test(file) && !/\.d\.[cm]?ts$/.test(file)
}

function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a number from 0 to 65535, not "${value}".`)
  return port
}

function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1
  if (value === 'auto') return availableParallelism()
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new CliError(`--workers must be a whole number from 1 to 256 or "auto", not "${value}".`)
  return n
}


/** Whether the `passkeys` feature is on (`GUARDS.features` of config/auth.ts). */
function passkeysOn(app: Application): boolean {
  if (!app.config('auth')?.GUARDS) return false
  try {
    return app.make('auth.manager').resolved.features.has('passkeys')
  } catch {
    return false
  }
}

async function serveOne(ctx: CliContext, host: string, port: number, announce: boolean): Promise<void> {
  const app = await ctx.boot('http')
  let running
  try {
    running = await startServer(app, { host, port })
  } catch (error) {
    await app.shutdown()
    const code = (error as { code?: string }).code
    if (code === 'EADDRINUSE') throw new CliError(`Port ${port} on ${host} is already in use: stop the other server, or choose another port with --port.`)
    if (code === 'EACCES') throw new CliError(`Not allowed to listen on ${host}:${port} (ports below 1024 need privileges): choose another port with --port.`)
    if (code === 'EADDRNOTAVAIL') throw new CliError(`${host} is not an address of this machine: use --host 127.0.0.1 (or 0.0.0.0 for every interface).`)
    throw error
  }
  if (announce) ctx.out(`Trowel is serving on ${colors().cyan(running.url)}`)
  // Once per server (this process, or the first worker), now that the config is read.
  if (!cluster.isWorker || process.env.TROWEL_PRUNER === '1') {
    const warning = passkeyNotice(appUrlOf(app), passkeysOn(app))
    if (warning) process.stderr.write(`${colors(process.stderr).yellow('WARNING')} ${warning}\n`)
  }
  // Housekeeping (expired logins, old audit rows...) runs in one process: this one, or the first worker.
  if (!cluster.isWorker || process.env.TROWEL_PRUNER === '1') {
    const guards = app.config('auth')?.GUARDS
    if (guards) app.onShutdown(schedulePruning(app, { firstMs: Number(process.env.TROWEL_PRUNE_FIRST_MS) || undefined }))
  }
  const stop = (signal: string) => {
    app.log.info('server.stopping', { signal })
    // Requests still running after the deadline are cut off: a hung request never blocks a deploy.
    setTimeout(() => process.exit(1), shutdownDeadlineMs()).unref()
    running.close().then(() => process.exit(0), () => process.exit(1))
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
}

/**
 * How long to wait before replacing a crashed worker: nothing for an isolated crash, then
 * doubling from 250 ms per crash in the last minute, up to 30 s, so a crash loop cannot fork
 * hundreds of processes a second.
 */
export function restartDelay(crashTimes: number[], now: number): number {
  while (crashTimes.length > 0 && now - crashTimes[0]! > 60_000) crashTimes.shift()
  const recent = crashTimes.length
  return recent <= 1 ? 0 : Math.min(30_000, 250 * 2 ** (recent - 2))
}

/** `SHUTDOWN_TIMEOUT` seconds (default 10) that requests in flight get after SIGTERM. */
function shutdownDeadlineMs(): number {
  const seconds = Number(process.env.SHUTDOWN_TIMEOUT)
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 10) * 1000
}

export function registerServeCommand(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .summary('start the HTTP server')
    .description(
      'Start the HTTP server and print its URL. SIGTERM or Ctrl-C stops accepting connections, lets requests in flight finish, waits for the mails they handed over (reset links, notices) to be sent and closes the database pools. ' +
        "The app's TypeScript is compiled once to JavaScript in storage/.trowel/js (esbuild, in a child process; rebuilt when a source changes) and served from there, so the server runs without a TypeScript loader; " +
        'if that copy cannot be built, or with TROWEL_NO_COMPILE=1, the .ts files are loaded through tsx. ' +
        "import.meta.url (and import.meta.dirname and filename) still name each .ts file in the app, so a file found next to a module is the same either way. " +
        "Every other command that loads the app's files (migrate, openapi, routes:list, auth:prune, token:create, ...) uses the same copy, made when it first needs one; commands that only write files load none. The copy works wherever the app is copied or moved with its storage folder (each module finds its .ts file from its own place), so a build step can make it once; where storage/.trowel/js is reached through a symbolic link, no copy is made and the .ts files are loaded through tsx. " +
        'With --workers N the primary process forks N workers (node:cluster) that share the port and restarts any that dies; ' +
        'the memory session and throttle drivers are refused then (each process would keep its own), and failed logins are counted in Redis when REDIS_URL is set, else in the database, unless THROTTLE_DRIVER says otherwise. ' +
        'With --watch (for development) craft runs the server in a child process and restarts it when a .ts, .js, .json, .html or .env file of the app changes ' +
        "(node's recursive fs.watch; changes within 200 ms are gathered into one restart; node_modules, storage, tests and .git are ignored). " +
        'A server that fails to start, say on a syntax error, is reported and started again at the next change. ' +
        'Before starting it warns when APP_DEBUG=true is served on an address other machines can reach or with APP_ENV=production, and when a local APP_URL (the base of links in e-mails) names another port; ' +
        'the generated APP_URL, http://localhost:8000, follows --port instead (docs/configuration.md). ' +
        "It also warns when passkeys are on and APP_URL's host is an IP address, which WebAuthn refuses.",
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (default: the PORT variable, else 8000)')
    .option('--workers <n>', 'fork N worker processes (node:cluster); "auto" = one per core')
    .option('--watch', 'restart the server when a file of the app changes (for development)')
    .action(async (opts: ServeOptions) => {
      const root = ctx.requireApp()
      // The environment as given, before .env fills it in: each restarted child of --watch reads
      // .env afresh (the process environment wins over .env, so passing ours would freeze it).
      const given = { ...process.env }
      loadEnvironment(root)
      // Platforms and container runtimes hand the port over in PORT: used when --port is absent.
      const port = parsePort(opts.port ?? given.PORT ?? '8000')
      const workers = parseWorkers(opts.workers)
      if (opts.watch) {
        watchAndServe(ctx, root, ['--host', opts.host, '--port', String(port), ...(opts.workers ? ['--workers', opts.workers] : [])], given)
        return
      }
      // Once, before boot: in the watch child (which reads .env afresh), in the primary, not in workers.
      if (!cluster.isWorker) {
        const notices = serveNotices({ host: opts.host, port, env: process.env, given })
        if (notices.appUrl) process.env.APP_URL = notices.appUrl
        for (const line of notices.info) ctx.out(colors().dim(line))
        for (const line of notices.warnings) process.stderr.write(`${colors(process.stderr).yellow('WARNING')} ${line}\n`)
      }
      // The app's modules come from a compiled copy (cli/app-javascript), made now so that workers inherit it.
      await appModulesReady()
      // With METRICS_TOKEN, a scrape of any worker answers for all of them (observability/cluster-metrics).
      const clusterMetrics = workers > 1 && metricsToken() !== undefined ? await import('../../observability/cluster-metrics.js') : null
      if (cluster.isWorker) clusterMetrics?.answerClusterScrapes()
      if (workers === 1 || cluster.isWorker) {
        // A worker started after the first ones listened takes the port they got (see fork below).
        const bound = cluster.isWorker ? Number(process.env.TROWEL_CLUSTER_PORT) : NaN
        await serveOne(ctx, opts.host, Number.isInteger(bound) && bound > 0 ? bound : port, !cluster.isWorker)
        return
      }
      const driver = (process.env.SESSION_DRIVER ?? 'cookie').toLowerCase()
      if (driver === 'memory') throw new CliError('SESSION_DRIVER=memory keeps sessions in one process; use cookie, database or redis with --workers.')
      if ((process.env.THROTTLE_DRIVER ?? '').toLowerCase() === 'memory') {
        throw new CliError('THROTTLE_DRIVER=memory counts failed logins per process; use database or redis with --workers.')
      }
      // Workers inherit this: shared state defaults to shared stores (see auth/auth-provider.ts).
      process.env.TROWEL_WORKERS = String(workers)
      clusterMetrics?.serveClusterMetrics()
      let stopping = false
      let ready = 0
      const listened = new WeakSet<object>()
      const crashes: number[] = []
      let pruner: object | undefined
      // The port the workers listen on. With --port 0 each new listening handle gets a port of its
      // own: once every worker of the first handle has died, a replacement listening on 0 would
      // serve another port than the one announced, so replacements are given the bound one.
      let boundPort: number | undefined
      const fork = () => {
        const env: Record<string, string> = pruner === undefined ? { TROWEL_PRUNER: '1' } : {}
        if (boundPort !== undefined) env.TROWEL_CLUSTER_PORT = String(boundPort)
        const worker = cluster.fork(env)
        pruner ??= worker
        worker.on('listening', (address) => {
          boundPort ??= address.port
          listened.add(worker)
          if (++ready === workers) ctx.out(`Trowel is serving on http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${address.port} with ${workers} workers`)
        })
        return worker
      }
      for (let i = 0; i < workers; i++) fork()
      cluster.on('exit', (worker, code) => {
        if (stopping) return
        // A worker that dies before it ever listened, while none has, is a startup failure (a
        // missing JWT_SECRET, a syntax error, a database that is down): its error is printed
        // above; restarting would loop for ever, so the whole server stops with exit code 1.
        if (!listened.has(worker) && ready === 0) {
          ctx.out(`worker ${worker.process.pid} failed to start (${code}); stopping`)
          void stop(1)
          return
        }
        if (worker === pruner) pruner = undefined
        crashes.push(Date.now())
        const delay = restartDelay(crashes, Date.now())
        ctx.out(`worker ${worker.process.pid} exited (${code}); starting another${delay > 0 ? ` in ${delay} ms` : ''}`)
        setTimeout(() => stopping || fork(), delay)
      })
      const stop = async (exitCode = 0) => {
        if (stopping) return
        stopping = true
        const alive = Object.values(cluster.workers ?? {}).filter((w) => w && !w.isDead())
        // Every worker stops at once; one still running at the deadline is killed.
        const deadline = setTimeout(() => {
          for (const worker of alive) if (worker && !worker.isDead()) worker.process.kill('SIGKILL')
        }, shutdownDeadlineMs())
        await Promise.all(alive.map((worker) => new Promise<void>((resolve) => {
          worker!.once('exit', () => resolve())
          worker!.process.kill('SIGTERM')
        })))
        clearTimeout(deadline)
        process.exit(exitCode)
      }
      process.once('SIGTERM', () => void stop())
      process.once('SIGINT', () => void stop())
    })
}

/**
 * `serve --watch`: runs `craft serve` (without --watch) in a child process and restarts it when a
 * watched file changes (node's recursive `fs.watch`, events gathered for 200 ms). A child that
 * fails to boot (a syntax error, say) is reported and restarted at the next change. The child
 * gets the environment craft was started with, without .env's values, so an edit to .env takes
 * effect at the restart it causes.
 */
function watchAndServe(ctx: CliContext, root: string, serveArgs: string[], env: NodeJS.ProcessEnv): void {
  const c = colors()
  const script = process.argv[1]!
  let child: ChildProcess | null = null
  let stopping = false
  let restarting = false
  const pending = new Set<string>()
  let timer: ReturnType<typeof setTimeout> | undefined

  const start = () => {
    const current = spawn(process.execPath, [script, 'serve', ...serveArgs], { cwd: root, stdio: 'inherit', env })
    child = current
    current.on('exit', (code, signal) => {
      if (child === current) child = null
      if (!stopping && !restarting) ctx.out(c.yellow(`The server stopped (${code ?? signal}); waiting for a file change to restart it.`))
    })
  }
  const stopChild = () =>
    new Promise<void>((resolve) => {
      const current = child
      if (!current || current.exitCode !== null || current.signalCode !== null) return resolve()
      const kill = setTimeout(() => current.kill('SIGKILL'), 5000)
      current.once('exit', () => {
        clearTimeout(kill)
        resolve()
      })
      current.kill('SIGTERM')
    })
  const restart = async () => {
    const files = [...pending]
    pending.clear()
    ctx.out(c.yellow(`${files[0]}${files.length > 1 ? ` and ${files.length - 1} more` : ''} changed: restarting`))
    restarting = true
    await stopChild()
    restarting = false
    if (!stopping) start()
  }
  const watcher = watch(root, { recursive: true }, (_event, filename) => {
    if (!filename || stopping) return
    const file = filename.toString()
    if (!shouldRestart(file)) return
    pending.add(file)
    clearTimeout(timer)
    timer = setTimeout(() => void restart(), 200)
  })
  watcher.on('error', (error) => ctx.out(c.red(`Watching ${root} failed: ${error.message}`)))
  ctx.out(c.dim(`Watching ${root}: a change to a .ts, .js, .json, .html or .env file restarts the server`))
  start()
  const stop = async () => {
    if (stopping) return
    stopping = true
    clearTimeout(timer)
    watcher.close()
    await stopChild()
    process.exit(0)
  }
  process.once('SIGTERM', () => void stop())
  process.once('SIGINT', () => void stop())
}
