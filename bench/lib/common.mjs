// Shared pieces of the benchmarks: servers pinned to core 0 (`taskset -c 0`), load from core 1
// (`taskset -c 1`, autocannon in a child process), RSS from /proc, the machine's description and
// markdown tables. Every server and every load run here is bounded in time and stops by itself;
// everything listens on 127.0.0.1 only.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { cpus, totalmem, loadavg, release } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'

export const ROOT = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
export const SERVER_CORE = process.env.BENCH_SERVER_CORE ?? '0'
export const LOAD_CORE = process.env.BENCH_LOAD_CORE ?? '1'
const LOAD_WORKER = join(ROOT, 'bench/lib/load-worker.mjs')

const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0

/** `[command, args]` running `node args` pinned to `core` (unpinned when taskset is missing). */
export function pinned(core, args) {
  return hasTaskset ? ['taskset', ['-c', String(core), process.execPath, ...args]] : [process.execPath, args]
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Polls `url` until it answers `status` (default 200); rejects after `timeoutMs`. */
export async function waitFor(url, { timeoutMs = 30_000, status = 200, intervalMs = 10, isAlive = () => true } = {}) {
  const start = performance.now()
  for (;;) {
    if (!isAlive()) throw new Error(`server for ${url} exited before answering`)
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000), redirect: 'manual' })
      await res.arrayBuffer()
      if (res.status === status) return performance.now() - start
    } catch {
      // not listening yet
    }
    if (performance.now() - start > timeoutMs) throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`)
    await sleep(intervalMs)
  }
}

const running = new Set()
let exitHooked = false
function hookExit() {
  if (exitHooked) return
  exitHooked = true
  const killAll = () => {
    for (const s of running) s.kill()
  }
  process.on('exit', killAll)
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      killAll()
      process.exit(130)
    })
  }
}

/**
 * Starts `node <args>` pinned to the server core, waits until `readyUrl` answers 200.
 * Output is kept (last 64 KB) for error messages and otherwise discarded.
 */
export async function startServer({ name, args, cwd = ROOT, env = {}, readyUrl, readyStatus = 200, timeoutMs = 60_000 }) {
  hookExit()
  const [cmd, argv] = pinned(SERVER_CORE, args)
  const child = spawn(cmd, argv, { cwd, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const keep = (chunk) => {
    output += chunk.toString()
    if (output.length > 65_536) output = output.slice(-65_536)
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  let exited = false
  const exitPromise = new Promise((r) => child.once('exit', (code, signal) => {
    exited = true
    running.delete(server)
    r(code ?? signal)
  }))
  const server = {
    name,
    pid: child.pid,
    output: () => output,
    kill: () => {
      if (!exited) child.kill('SIGKILL')
    },
    async stop() {
      if (exited) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exitPromise
      clearTimeout(timer)
    },
    rssMb: () => procStatusMb(child.pid, 'VmRSS'),
    peakRssMb: () => procStatusMb(child.pid, 'VmHWM'),
  }
  running.add(server)
  try {
    server.startMs = await waitFor(readyUrl, { timeoutMs, status: readyStatus, isAlive: () => !exited })
  } catch (error) {
    server.kill()
    throw new Error(`${name} did not start: ${error.message}\n${output.slice(-4000)}`, { cause: error })
  }
  return server
}

/** A field of /proc/<pid>/status in MB (VmRSS: resident now; VmHWM: peak resident), or null. */
export function procStatusMb(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : null
  } catch {
    return null
  }
}

/** CPU time (user + system, all threads) a process has used, in seconds, or null. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // fields[11] = utime, fields[12] = stime (fields 14 and 15 of proc(5)), in clock ticks
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return null
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100

/** The environment without variables that would change an app's configuration. */
export function cleanEnv() {
  const env = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('NODE_TEST') || k === 'NODE_OPTIONS') continue
    if (['DB_CONNECTION', 'DATABASE_URL', 'DB_DATABASE', 'APP_KEY', 'JWT_SECRET', 'SESSION_DRIVER', 'MAIL_DRIVER', 'APP_DEBUG', 'TRUST_PROXY', 'REDIS_URL', 'THROTTLE_DRIVER', 'PORT'].includes(k)) continue
    env[k] = v
  }
  return env
}

/**
 * One autocannon run from the load core (a child process, so the load never shares the
 * runner's event loop). Bounded: `duration` seconds, plus a hard kill after duration + 30 s.
 * Returns { rps, p50, p99, total, errors, timeouts, non2xx, statusCodes }.
 */
export function load({ url, duration = 10, connections = 50, method = 'GET', headers = {}, body, timeout = 10, expectStatus = 200, pid, pipelining = 1 }) {
  const options = { url, duration, connections, method, headers, body, timeout, expectStatus, pipelining }
  const cpuBefore = pid ? cpuSeconds(pid) : null
  const [cmd, argv] = pinned(LOAD_CORE, [LOAD_WORKER, JSON.stringify(options)])
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (err += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), (duration + 30) * 1000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      if (code !== 0) return reject(new Error(`load run against ${url} failed (${code}): ${err.slice(-2000)}`))
      try {
        const result = JSON.parse(out)
        const cpuAfter = pid ? cpuSeconds(pid) : null
        result.cpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null
        // Requests per second of server CPU: robust against other work on the machine.
        result.perCpu = result.cpu ? result.total / result.cpu : null
        result.cpuShare = result.cpu !== null ? result.cpu / duration : null
        resolve(result)
      } catch (error) {
        reject(new Error(`load run against ${url} printed no result: ${error.message}\n${err.slice(-2000)}`))
      }
    })
  })
}

export function median(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b)
  if (v.length === 0) return null
  const mid = Math.floor(v.length / 2)
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2
}

/**
 * The median over rounds of a's requests per server CPU-second divided by b's in the same round:
 * two servers measured minutes apart on a shared machine drift by more than the few per cent a
 * "within 3 %" target asks about, while the two cases of one round ran back to back.
 */
export function pairedRatio(a, b) {
  return median(a.perCpuRounds.map((x, i) => (x && b.perCpuRounds[i] ? x / b.perCpuRounds[i] : null)))
}

/** Aggregates rounds: median req/s, median p50/p99, all rounds' req/s, total non-200s and errors. */
export function summarize(runs) {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    perCpu: median(runs.map((r) => r.perCpu)),
    cpuShare: median(runs.map((r) => r.cpuShare)),
    rounds: runs.map((r) => r.rps),
    perCpuRounds: runs.map((r) => r.perCpu),
    bad: runs.reduce((n, r) => n + r.errors + r.timeouts + r.unexpected, 0),
  }
}

export function fmtInt(n) {
  return n === null || n === undefined ? 'n/a' : Math.round(n).toLocaleString('en-US')
}
export function fmtMs(n) {
  return n === null || n === undefined ? 'n/a' : n < 10 ? n.toFixed(2) : n.toFixed(1)
}
export function fmtRatio(n) {
  return n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(2)
}
export function fmtMb(n) {
  return n === null || n === undefined ? 'n/a' : n.toFixed(0)
}

/** A markdown table from a header row and rows of cells. */
export function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((h, i) => (i === 0 ? '---' : '---:')).join('|')}|`]
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`)
  return lines.join('\n')
}

/** One line describing the machine and the run's conditions. */
export function machine() {
  const list = cpus()
  const model = list[0]?.model?.trim() ?? 'unknown CPU'
  const [l1, l5] = loadavg()
  const mem = (totalmem() / 2 ** 30).toFixed(1)
  return `${list.length} × ${model}, ${mem} GiB RAM, Linux ${release()}, Node ${process.version}; load average at start ${l1.toFixed(2)} (1 min), ${l5.toFixed(2)} (5 min)` +
    (hasTaskset ? `; servers pinned to core ${SERVER_CORE}, load from core ${LOAD_CORE} (taskset)` : '; taskset missing: NOT pinned')
}

export function loadAverage() {
  return loadavg()[0]
}

/** Creates a Trowel app with `craft new`, the seed steps of scripts/seed-steps.mjs and the given extra files. */
export function runNode(args, { cwd = ROOT, env = {}, timeout = 120_000 } = {}) {
  const r = spawnSync(process.execPath, args, { cwd, env: { ...cleanEnv(), ...env }, encoding: 'utf8', timeout })
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (${r.status}):\n${r.stderr}${r.stdout}`)
  return r
}

export function requireBuild() {
  if (!existsSync(join(ROOT, 'dist/cli/index.js'))) {
    console.error('dist/ is missing: run "npm run build" first.')
    process.exit(1)
  }
}

/**
 * `--rounds N --duration S --warmup S --connections N --pipelining N` (or BENCH_ROUNDS, ...), with
 * defaults. `--pipelining` > 1 lets one autocannon core keep a fast server busy (see bench/README.md).
 */
export function settings(defaults = {}) {
  const d = { rounds: 3, duration: 10, warmup: 5, connections: 50, pipelining: 1, ...defaults }
  const argv = process.argv.slice(2)
  const out = {}
  for (const key of Object.keys(d)) {
    const i = argv.findIndex((a) => a === `--${key}` || a.startsWith(`--${key}=`))
    const raw = i === -1 ? process.env[`BENCH_${key.toUpperCase()}`] : argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1]
    const n = raw === undefined ? d[key] : Number(raw)
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${key} must be a number, not "${raw}"`)
    out[key] = n
  }
  out.rounds = Math.max(1, Math.round(out.rounds))
  out.duration = Math.max(1, out.duration)
  out.connections = Math.max(1, Math.round(out.connections))
  out.pipelining = Math.max(1, Math.round(out.pipelining))
  return out
}

/**
 * Runs every case for `warmup` seconds, then `rounds` rounds of `duration` seconds each, the
 * order rotating every round so no system always goes first. A case: { name, url, method?,
 * headers?, body?, connections?, timeout?, prepare?() } (`prepare` may return extra headers,
 * e.g. a fresh session cookie). Returns Map name → { rps, p50, p99, rounds, bad }.
 */
export async function compare(cases, { rounds, duration, warmup, connections, pipelining = 1 }, log = console.log) {
  const options = async (c, seconds) => {
    const extra = c.prepare ? await c.prepare() : {}
    return { url: c.url, method: c.method, body: c.body, headers: { ...c.headers, ...extra }, connections: c.connections ?? connections, timeout: c.timeout ?? 10, duration: seconds, pid: c.pid, pipelining: c.pipelining ?? pipelining }
  }
  if (warmup > 0) {
    for (const c of cases) {
      log(`  warm-up ${c.name} (${warmup} s)`)
      await load(await options(c, warmup))
    }
  }
  const runs = new Map(cases.map((c) => [c.name, []]))
  for (let r = 0; r < rounds; r++) {
    const order = cases.map((_, i) => cases[(i + r) % cases.length])
    for (const c of order) {
      const result = await load(await options(c, duration))
      runs.get(c.name).push(result)
      const bad = result.errors + result.timeouts + result.unexpected
      const cpu = result.perCpu ? `, ${fmtInt(result.perCpu)} req/CPU-s (server CPU ${Math.round(result.cpuShare * 100)}%)` : ''
      log(`  round ${r + 1}/${rounds} ${c.name}: ${fmtInt(result.rps)} req/s, p50 ${fmtMs(result.p50)} ms, p99 ${fmtMs(result.p99)} ms${cpu}${bad ? `, ${bad} failed (${JSON.stringify(result.statusCodes)})` : ''}`)
    }
  }
  return new Map([...runs].map(([name, list]) => [name, summarize(list)]))
}

export const RESULTS_FILE = join(ROOT, 'bench/RESULTS.md')

/**
 * Replaces the generated block `<!-- <name>:start -->` … `<!-- <name>:end -->` of
 * bench/RESULTS.md (appending it when absent); everything outside the markers is kept, so the
 * hand-written notes survive a re-run.
 */
export function writeResultsSection(name, markdown) {
  const start = `<!-- ${name}:start -->`
  const end = `<!-- ${name}:end -->`
  const block = `${start}\n${markdown.trim()}\n${end}`
  let text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '# Trowel benchmark results\n'
  const i = text.indexOf(start)
  const j = text.indexOf(end)
  if (i !== -1 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length)
  else text = text.trimEnd() + '\n\n' + block + '\n'
  writeFileSync(RESULTS_FILE, text)
}

/** The command line that reproduces this run, for the results file. */
export function commandLine(script) {
  const args = process.argv.slice(2)
  return `npm run ${script}${args.length ? ' -- ' + args.join(' ') : ''}`
}
