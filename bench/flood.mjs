#!/usr/bin/env node
// Login under a flood (SPEC §9 item 5): an honest client at 127.0.0.1 logs in (POST /api/auth, one
// login at a time, 50 ms apart) while N connections from another source address (127.0.0.2: the
// client socket is bound to it) POST /api/auth for random unknown addresses as fast as they are
// answered. Each unknown address costs one argon2id check, so the flood fills the hashing queue.
// Printed: the honest client's median and p90 login time, per N (0, 1, 8, 64), with the hashing
// pool first come first served (`HASH_FAIR=0`, the pool's internal escape hatch, used here for
// the comparison only) and then fair (one queue per client, served round-robin: the default).
//
// The server is pinned to core 0 (one hashing thread), the flood runs in a child process pinned to
// core 1, the honest client in this process. The app's attempt budgets are off
// (`GUARDS.throttle` `ip`, `login`, `account`: null) so that the flood keeps hashing instead of
// being refused with 429, and the honest client's hundreds of logins are never throttled.
//
//   npm run bench:flood [-- --duration 10 --warmup 2]
import { spawn } from 'node:child_process'
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { readFileSync, writeFileSync } from 'node:fs'

const FLOOD_ADDRESS = '127.0.0.2'
const HONEST_ADDRESS = '127.0.0.1'
const FLOODS = [0, 1, 8, 64]
const HONEST_PAUSE_MS = 50
const honestAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })

if (process.argv[2] === '--flood-worker') {
  const result = await floodWorker(JSON.parse(process.argv[3]))
  process.stdout.write(JSON.stringify(result) + '\n')
  process.exit(0)
}

const { requireBuild, settings, machine, median, fmtMs, fmtInt, table, writeResultsSection, commandLine, pinned, LOAD_CORE, sleep, loadAverage } = await import('./lib/common.mjs')
const { createTrowelApp, registerUser, BENCH_USER } = await import('./lib/trowel-app.mjs')

requireBuild()
const opts = settings({ duration: 10, warmup: 2 })
const started = new Date().toISOString()
const machineLine = machine()
console.log(`Trowel: login under a flood — ${started}`)
console.log(machineLine)

const app = createTrowelApp()
const authConfig = join(app.dir, 'config/auth.ts')
writeFileSync(authConfig, budgetsOff(readFileSync(authConfig, 'utf8')))
const modes = [
  { name: 'first come first served (`HASH_FAIR=0`)', short: 'FIFO', env: { HASH_FAIR: '0' } },
  { name: 'fair (per-client queues, round-robin)', short: 'fair', env: {} },
]
const rows = []
try {
  for (const mode of modes) {
    const server = await app.serve({ name: `trowel ${mode.short}`, env: mode.env })
    try {
      if (mode === modes[0]) await registerUser(server.url)
      const port = Number(new URL(server.url).port)
      // Warm the hashing thread and the route.
      for (let i = 0; i < 5; i++) await honestLogin(port)
      for (const connections of FLOODS) {
        const run = await measure(port, connections, opts)
        const row = { mode, connections, ...run }
        rows.push(row)
        console.log(
          `${mode.short.padEnd(4)} flood ${String(connections).padStart(2)}: honest ${run.logins} logins, median ${fmtMs(run.median)} ms, p90 ${fmtMs(run.p90)} ms, max ${fmtMs(run.max)} ms, ${run.honestBusy} busy; ` +
            `flood ${fmtInt(run.floodRate)} answers/s ${JSON.stringify(run.floodStatus)}`,
        )
      }
    } finally {
      await server.stop()
    }
  }
} finally {
  app.cleanup()
}

const cell = (connections, short, key) => {
  const row = rows.find((r) => r.connections === connections && r.mode.short === short)
  return row ? row[key] : null
}
const tableRows = rows.map((r) => [
  r.mode.short,
  String(r.connections),
  fmtInt(r.logins),
  fmtMs(r.median),
  fmtMs(r.p90),
  fmtMs(r.max),
  fmtInt(r.honestBusy),
  fmtInt(r.floodRate),
  r.floodTotal ? `${Math.round((100 * (r.floodStatus['503'] ?? 0)) / r.floodTotal)} %` : '—',
])
const fair64 = cell(64, 'fair', 'median')
const fifo64 = cell(64, 'FIFO', 'median')
const markdown = `Run ${started} — \`${commandLine('bench:flood')}\` — Node ${process.version}

Machine: ${machineLine}; load average at the end ${loadAverage().toFixed(2)}.
The server (a generated app, its attempt budgets off: \`GUARDS.throttle\` \`ip\`, \`login\`, \`account\` null) on core 0, so one hashing thread; the flood (N keep-alive connections from ${FLOOD_ADDRESS}, \`POST /api/auth\` for a random unknown address, the next as soon as the last is answered) in a process on core ${LOAD_CORE}; the honest client (${HONEST_ADDRESS}, \`POST /api/auth\` with the right password, ${HONEST_PAUSE_MS} ms between logins) in the runner. ${opts.warmup} s of flood, then ${opts.duration} s of honest logins. Hashing at the default \`GUARDS.hashing.max_wait\` (2,000 ms).

${table(['pool', 'flood connections', 'honest logins', 'median ms', 'p90 ms', 'max ms', 'honest 503', 'flood answers/s', 'flood 503'], tableRows)}

With 64 flooding connections the honest client's median login took ${fmtMs(fifo64)} ms first come first served and ${fmtMs(fair64)} ms fair (target: under 2,000 ms with 64 connections: ${fair64 !== null && fair64 < 2000 ? 'met' : '**missed**'}).`
writeResultsSection('flood', markdown)
console.log('\n' + markdown)

/**
 * Floods with `connections` connections for warm-up + duration; meanwhile the honest client logs
 * in one login at a time for `duration` seconds after the warm-up.
 */
async function measure(port, connections, { duration, warmup }) {
  const total = connections > 0 ? warmup + duration : 0
  const flood = connections > 0 ? startFlood({ port, connections, seconds: total }) : null
  if (connections > 0) await sleep(warmup * 1000)
  const latencies = []
  let honestBusy = 0
  const until = performance.now() + duration * 1000
  while (performance.now() < until) {
    const { ms, status } = await honestLogin(port)
    if (status === 200) latencies.push(ms)
    else if (status === 503) honestBusy++
    else throw new Error(`honest login answered ${status}`)
    await sleep(HONEST_PAUSE_MS)
  }
  const floodResult = flood ? await flood : { total: 0, status: {} }
  const sorted = [...latencies].sort((a, b) => a - b)
  return {
    logins: latencies.length + honestBusy,
    median: median(sorted),
    p90: percentile(sorted, 0.9),
    max: sorted.at(-1) ?? null,
    honestBusy,
    floodTotal: floodResult.total,
    floodRate: connections > 0 ? floodResult.total / total : 0,
    floodStatus: floodResult.status,
  }
}

/** config/auth.ts with the `ip`, `login` and `account` budgets set to null (off). */
function budgetsOff(text) {
  if (!/\bthrottle: \{/.test(text)) return text.replace('export const GUARDS = {', 'export const GUARDS = {\n  throttle: { ip: null, login: null, account: null },')
  const out = text.replace(/\b(ip|login|account): \{ attempts: [^}]*\}/g, '$1: null')
  if ((out.match(/\b(ip|login|account): null/g) ?? []).length !== 3) throw new Error('config/auth.ts: could not turn the ip, login and account budgets off')
  return out
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted, p) {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]
}

/** One honest login; resolves with its time and status. */
function honestLogin(port) {
  const body = JSON.stringify({ username: BENCH_USER.email, password: BENCH_USER.password })
  const start = performance.now()
  return post({ port, agent: honestAgent, localAddress: HONEST_ADDRESS, body }).then((status) => ({ ms: performance.now() - start, status }))
}

/** The flood in a child process pinned to the load core; resolves with { total, status }. Bounded. */
function startFlood({ port, connections, seconds }) {
  const script = fileURLToPath(import.meta.url)
  const [cmd, argv] = pinned(LOAD_CORE, [script, '--flood-worker', JSON.stringify({ port, connections, seconds })])
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (err += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      if (code !== 0) return reject(new Error(`flood worker failed (${code}): ${err.slice(-2000)}`))
      try {
        resolve(JSON.parse(out))
      } catch (error) {
        reject(new Error(`flood worker printed no result: ${error.message}\n${err.slice(-2000)}`))
      }
    })
  })
}

/** In the child: `connections` loops of POST /api/auth from FLOOD_ADDRESS for `seconds`. */
async function floodWorker({ port, connections, seconds }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections })
  const status = {}
  let total = 0
  const end = performance.now() + seconds * 1000
  const loop = async () => {
    while (performance.now() < end) {
      const body = JSON.stringify({ username: `${randomBytes(6).toString('hex')}@flood.test`, password: 'not the password 123' })
      let code
      try {
        code = await post({ port, agent, localAddress: FLOOD_ADDRESS, body })
      } catch {
        code = 'error'
      }
      status[code] = (status[code] ?? 0) + 1
      total++
    }
  }
  await Promise.all(Array.from({ length: connections }, loop))
  agent.destroy()
  return { total, status }
}

/** POST /api/auth with a JSON body; resolves with the status once the body is read. */
function post({ port, agent, localAddress, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/api/auth', method: 'POST', agent, localAddress, timeout: 30_000, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.on('error', reject)
    req.end(body)
  })
}
