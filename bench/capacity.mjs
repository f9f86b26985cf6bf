#!/usr/bin/env node
// Issue 9's capacity figures: what one core of a Trowel app, and the PostgreSQL behind it, serve
// on the JWT paths, measured, so docs/deploying.md can size a deployment from them.
//
// One generated app on PostgreSQL (a fresh database, dropped at the end; only DATABASE_URL is
// given, as in a deployment), served by `node craft serve` pinned to core 0, autocannon on core 1.
// Four cases:
//   - "JWT only": the token verified, no database (a route with JWTAuthenticationMiddleware only);
//   - "JWT + user, authenticates: false": the seed's `api` stack (verify, then the user by id);
//   - "JWT + user, authenticates: true": the same plus the stored-digest check (one query for both);
//   - "web login + user": the session row of bench:session (logged in through POST /login, the
//     app's defaults, `GET /bench/home` in the `web` stack behind `auth`), logged in afresh
//     before each run (outside the measured time) so no run rewrites its session.
// For each: req/s, the app's requests per CPU-second (= per core), and PostgreSQL's CPU per
// request (every `postgres` process's CPU time from /proc, before and after each run).
//
//   npm run bench:capacity [-- --rounds 2 --duration 10 --warmup 3 --connections 50]
//   BENCH_DATABASE_URL=postgres://user@host:5432/db   (default: DATABASE_URL, else the CI server)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { machine, requireBuild, settings, load, table, fmtInt, fmtMs, median, writeResultsSection, commandLine, loadAverage } from './lib/common.mjs'
import { createTrowelApp, registerUser, apiToken, webLogin } from './lib/trowel-app.mjs'

requireBuild()
const opts = settings({ rounds: 2, duration: 10, warmup: 3 })
const startedAt = new Date()
const machineLine = machine()
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
console.log(`Trowel capacity per core (JWT paths and the logged-in web request on PostgreSQL) — ${startedAt.toISOString()}`)
console.log(machineLine)
console.log(`${opts.rounds} rounds × ${opts.duration} s after a ${opts.warmup} s warm-up, ${opts.connections} connections\n`)

/** CPU seconds used so far by every process named `postgres` (the server and its backends). */
function postgresCpuSeconds() {
  let ticks = 0
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      if (comm !== 'postgres') continue
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(f[11]) + Number(f[12])
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks / 100
}

const dbName = `trowel_capacity_${process.pid}`
const admin = new pg.Client({ connectionString: baseUrl })
await admin.connect()
await admin.query(`CREATE DATABASE ${dbName}`)
const url = new URL(baseUrl)
url.pathname = `/${dbName}`

const app = createTrowelApp({
  env: { DATABASE_URL: url.toString() },
  editApiConfig: (t) => t.replace('authenticates: false', "authenticates: env('BENCH_JWT_AUTHENTICATES', false) === true"),
})
// "JWT only": a stack with the verification middleware alone, and a route answering the claims.
const kernel = join(app.dir, 'Kernel.ts')
writeFileSync(kernel, readFileSync(kernel, 'utf8').replace('routeMiddleware = {', 'routeMiddleware = {\n    jwtonly: [JWTAuthenticationMiddleware],'))
const web = join(app.dir, 'routes/web.ts')
writeFileSync(
  web,
  readFileSync(web, 'utf8').replace(
    'export const ROUTES = [',
    "export const ROUTES = [\n  Route.get('/bench/claims', ({ state }: any) => ({ data: { sub: state.jwt.payload.sub } })).withoutMiddleware('web').middleware(['jwtonly']),",
  ),
)

const servers = []
const rows = []
const figures = {}
try {
  const off = await app.serve({ name: 'trowel (authenticates: false)' })
  servers.push(off)
  await registerUser(off.url)
  const token = await apiToken(off.url)
  const headers = { authorization: `Bearer ${token}` }
  const on = await app.serve({ name: 'trowel (authenticates: true)', env: { BENCH_JWT_AUTHENTICATES: 'true' } })
  servers.push(on)
  // .env says DB_CONNECTION=sqlite; DATABASE_URL in the environment must have won.
  const users = new pg.Client({ connectionString: url.toString() })
  await users.connect()
  const registered = (await users.query('SELECT count(*)::int AS n FROM users')).rows[0].n
  await users.end()
  if (registered !== 1) throw new Error('the app did not use the PostgreSQL database named by DATABASE_URL')

  const cases = [
    { name: 'JWT only (no database)', key: 'verify', url: `${off.url}/bench/claims`, pid: off.pid },
    { name: 'JWT + user, `authenticates: false`', key: 'false', url: `${off.url}/api/me`, pid: off.pid },
    { name: 'JWT + user, `authenticates: true`', key: 'true', url: `${on.url}/api/me`, pid: on.pid },
    { name: 'Web login + user (session cookie, `GET /bench/home`)', key: 'session', url: `${off.url}/bench/home`, pid: off.pid, web: true },
  ]
  const headersFor = async (c) => (c.web ? { cookie: await webLogin(off.url) } : headers)
  for (const c of cases) {
    const r = await fetch(c.url, { headers: await headersFor(c) })
    if (r.status !== 200) throw new Error(`${c.url} answered ${r.status}: ${await r.text()}`)
  }
  const run = async (c, duration) => {
    const runHeaders = await headersFor(c)
    const pgBefore = postgresCpuSeconds()
    const result = await load({ url: c.url, headers: runHeaders, duration, connections: opts.connections, pid: c.pid })
    result.pgCpu = postgresCpuSeconds() - pgBefore
    return result
  }
  if (opts.warmup > 0) for (const c of cases) await run(c, opts.warmup)
  const runs = new Map(cases.map((c) => [c.key, []]))
  for (let round = 0; round < opts.rounds; round++) {
    for (const c of cases.map((_, i) => cases[(i + round) % cases.length])) {
      const r = await run(c, opts.duration)
      runs.get(c.key).push(r)
      const bad = r.errors + r.timeouts + r.unexpected
      console.log(`  round ${round + 1}/${opts.rounds} ${c.name}: ${fmtInt(r.rps)} req/s, ${fmtInt(r.perCpu)} req per app CPU-s, PostgreSQL ${(r.pgCpu * 1e6 / r.total).toFixed(1)} µs CPU per request${bad ? `, ${bad} failed` : ''}`)
    }
  }
  for (const c of cases) {
    const list = runs.get(c.key)
    const rps = median(list.map((r) => r.rps))
    const perCore = median(list.map((r) => r.perCpu))
    const pgUs = median(list.map((r) => (r.pgCpu * 1e6) / r.total))
    const bad = list.reduce((n, r) => n + r.errors + r.timeouts + r.unexpected, 0)
    figures[c.key] = { rps, perCore, pgUs }
    // Cores at 70 % utilisation, the headroom a deployment should keep for bursts and failover.
    const cores = (target) => Math.ceil(target / (perCore * 0.7))
    const pgCores = (target) => (pgUs < 5 ? '—' : fmtInt(Math.ceil((target * pgUs) / 1e6 / 0.7)))
    rows.push([
      c.name,
      fmtInt(rps),
      fmtMs(median(list.map((r) => r.p99))),
      fmtInt(perCore),
      pgUs < 5 ? '≈ 0' : pgUs.toFixed(0),
      `${fmtInt(cores(1e4))} / ${pgCores(1e4)}`,
      `${fmtInt(cores(1e5))} / ${pgCores(1e5)}`,
      `${fmtInt(cores(1e6))} / ${pgCores(1e6)}`,
      String(bad),
    ])
  }
} finally {
  for (const s of servers) await s.stop()
  app.cleanup()
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {})
  await admin.end()
}

const tableText = table(
  ['GET (HS512 Bearer token; the last row a session cookie)', 'req/s on 1 core', 'p99 ms', 'req per app CPU-s (per core)', 'PostgreSQL µs CPU per request', 'cores for 10k req/s: app / PostgreSQL', '100k req/s', '1M req/s', 'failed'],
  rows,
)
console.log('\n' + tableText)
const note =
  'Cores at 70 % utilisation (per-core figure × 0.7), rounded up; app cores are Node processes (`craft serve --workers` = cores per machine). ' +
  'PostgreSQL cores are for the user/digest reads (primary key lookups; the web row: the login by its token digest and the user), spread over replicas; "—": the case reads nothing.'
writeResultsSection(
  'capacity',
  [
    `Run ${startedAt.toISOString()} — \`${commandLine('bench:capacity')}\` — Node ${process.version}`,
    '',
    `Machine: ${machineLine}; load average at the end ${loadAverage().toFixed(2)}. PostgreSQL ${(await pgVersion()) ?? ''} on the same machine, unpinned.`,
    `${opts.rounds} rounds × ${opts.duration} s after a ${opts.warmup} s warm-up, ${opts.connections} connections; medians. One generated app given only \`DATABASE_URL\` (a fresh PostgreSQL database).`,
    '',
    tableText,
    '',
    note,
  ].join('\n'),
)
console.log(`\n${note}\nWritten to bench/RESULTS.md (capacity).`)

async function pgVersion() {
  const c = new pg.Client({ connectionString: baseUrl })
  try {
    await c.connect()
    return (await c.query('SHOW server_version')).rows[0].server_version
  } catch {
    return null
  } finally {
    await c.end().catch(() => {})
  }
}
