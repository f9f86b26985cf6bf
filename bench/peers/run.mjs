#!/usr/bin/env node
// Issue 8's benchmark: Trowel's three auth paths beside Fastify, Hono, Express and NestJS (each
// with its usual auth packages) and the raw node:http limit, in one run on one machine.
//
//   npm run bench:peers [-- --rounds 3 --duration 10 --warmup 5 --connections 50]
//
// The peers live in bench/peers/package.json (installed here on first run with `npm ci`), never
// in Trowel's own dependencies. Every server is pinned to core 0 and driven by autocannon from
// core 1; systems alternate over the rounds; the median round is reported. Endpoints, the same
// JSON everywhere:
//   JWT      GET /api/me     Bearer HS512 token (one token, one secret for all), the user from SQLite
//   session  GET /home       cookie login, server-side session, the user from SQLite. Trowel:
//                            logged in through POST /login on the generated app's defaults,
//                            GET /bench/home (`auth` in the `web` stack) answering the user; the
//                            limit: bench/servers/trowel-session.mjs, the same work on the same
//                            cookies and database (one fresh login per round for both). Trowel
//                            twice: the process that answered the login, and a twin process of the
//                            same app that never answers one, as the limit never does (its cookie
//                            comes from a login on the first): the paired ratio to the limit is
//                            read on the twin, the comparison with the peers (which answer their
//                            own logins) on the first
//   login    POST /api/auth  password check (Trowel and raw: argon2id m=19456,t=2,p=1; the peers:
//                            bcrypt cost 12) + a new token
// Then: Trowel's JWT route alone and while logins run; `craft serve` time to the first 200; RSS.
// Results go to stdout and to bench/RESULTS.md (the block between the `peers` markers).
import { existsSync, statSync, readFileSync, rmSync } from 'node:fs'
import { spawn, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import {
  ROOT, compare, freePort, load, machine, requireBuild, settings, startServer, table, waitFor, pinned, sleep, median, loadAverage, pairedRatio,
  fmtInt, fmtMs, fmtRatio, fmtMb, writeResultsSection, commandLine, SERVER_CORE,
} from '../lib/common.mjs'
import { createTrowelApp, registerUser, apiToken, webLogin, BENCH_USER } from '../lib/trowel-app.mjs'
import { copyUsers } from '../lib/users-db.mjs'

const PEERS = join(ROOT, 'bench/peers')
requireBuild()
installPeers()
const opts = settings()
const loginConnections = 8
const startedAt = new Date()
const log = (...a) => console.log(...a)
log(`Trowel vs peers — ${startedAt.toISOString()}`)
const machineLine = machine()
log(machineLine)
log(`${opts.rounds} rounds × ${opts.duration} s after a ${opts.warmup} s warm-up; ${opts.connections} connections (login: ${loginConnections})\n`)

const { default: bcrypt } = await import(join(PEERS, 'node_modules/bcrypt/bcrypt.js'))

const LIMIT = 'node:http (limit)'
/** A second `craft serve` of the same app, logged in through the first: the limit's history. */
const TWIN = 'Trowel (twin)'
const PEER_SERVERS = [
  { name: 'Fastify', file: 'fastify.mjs', packages: ['fastify', '@fastify/jwt', '@fastify/session', '@fastify/cookie'] },
  { name: 'Hono', file: 'hono.mjs', packages: ['hono', '@hono/node-server'] },
  { name: 'Express', file: 'express.mjs', packages: ['express', 'passport-jwt', 'express-session', 'passport-local', 'passport'] },
  { name: 'NestJS', file: 'nest.mjs', packages: ['@nestjs/core', '@nestjs/platform-express', '@nestjs/jwt', 'express-session'] },
]

const app = createTrowelApp()
const servers = new Map()
const failures = []
const rawDb = join(tmpdir(), `trowel-bench-raw-${process.pid}.sqlite`)
const peersDb = join(tmpdir(), `trowel-bench-peers-${process.pid}.sqlite`)
try {
  // A user registered through the form (argon2id), its token, then a fresh server to measure.
  const setup = await app.serve({ name: 'setup' })
  await registerUser(setup.url)
  const token = await apiToken(setup.url)
  await setup.stop()
  const secret = app.env().JWT_SECRET
  const trowelDb = join(app.dir, 'storage/database.sqlite')
  copyUsers(trowelDb, rawDb)
  copyUsers(trowelDb, peersDb, { passwordHash: await bcrypt.hash(BENCH_USER.password, 12) })
  const sessionSecret = 'bench-session-secret-'.padEnd(64, 'x')

  const trowel = await app.serve({ name: 'Trowel' })
  servers.set('Trowel', trowel)
  servers.set(TWIN, await app.serve({ name: TWIN }))
  const start = async (name, file, usersDb, extraEnv = {}) => {
    const port = await freePort()
    try {
      const s = await startServer({
        name,
        args: [file],
        cwd: PEERS,
        env: { PORT: String(port), JWT_SECRET: secret, USERS_DB: usersDb, SESSION_SECRET: sessionSecret, NODE_ENV: 'production', ...extraEnv },
        readyUrl: `http://127.0.0.1:${port}/bench/json`,
      })
      s.url = `http://127.0.0.1:${port}`
      servers.set(name, s)
    } catch (error) {
      failures.push(`${name} did not start: ${error.message.split('\n')[0]}`)
      log(`! ${name} did not start:\n${error.message}`)
    }
  }
  for (const p of PEER_SERVERS) await start(p.name, join(PEERS, 'servers', p.file), peersDb)
  // The limit reads the app's own database and APP_KEY: it accepts the cookies a Trowel login sets.
  await start(LIMIT, join(ROOT, 'bench/servers/raw.mjs'), rawDb, { APP_KEY: app.env().APP_KEY, TROWEL_DB: trowelDb })
  // Idle: every server at least 15 s after start with no traffic (V8 shrinks its young
  // generation some seconds after start-up, unevenly; 1 s after start Trowel shows 90-110 MB).
  await sleep(15_000)
  const idle = new Map([...servers].map(([n, s]) => [n, s.rssMb()]))

  // The same token and the same JSON everywhere.
  // Trowel, its twin and the limit share one app's database and APP_KEY: all log in through Trowel.
  const loginThroughTrowel = (name) => name === 'Trowel' || name === TWIN || name === LIMIT
  const sessionPath = (name) => (loginThroughTrowel(name) ? '/bench/home' : '/home')
  const sessionCookie = async (name) => {
    const s = servers.get(name)
    if (loginThroughTrowel(name)) return webLogin(trowel.url)
    const r = await fetch(s.url + '/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: BENCH_USER.email, password: BENCH_USER.password }) })
    if (r.status !== 200) throw new Error(`${name} POST /login answered ${r.status}`)
    await r.arrayBuffer()
    return r.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
  }
  const expected = await (await fetch(`${trowel.url}/api/me`, { headers: { authorization: `Bearer ${token}` } })).text()
  for (const [name, s] of servers) {
    const me = await fetch(`${s.url}/api/me`, { headers: { authorization: `Bearer ${token}` } })
    const home = await fetch(s.url + sessionPath(name), { headers: { cookie: await sessionCookie(name) } })
    const [a, b] = [await me.text(), await home.text()]
    if (me.status !== 200 || a !== expected || home.status !== 200 || b !== expected) {
      failures.push(`${name} answers differently (GET /api/me ${me.status}, session ${home.status}); left out`)
      log(`! ${name}: /api/me ${me.status} ${a}\n  session ${home.status} ${b}\n  expected ${expected}`)
      await s.stop()
      servers.delete(name)
    }
  }
  const names = [...servers.keys()]
  const authBody = JSON.stringify({ username: BENCH_USER.email, password: BENCH_USER.password })

  log('\nJWT: GET /api/me')
  const jwt = await compare(
    names.map((n) => ({ name: n, url: `${servers.get(n).url}/api/me`, headers: { authorization: `Bearer ${token}` }, pid: servers.get(n).pid })),
    opts,
  )
  // Memory after load: each server alone, 10 s of GET /api/me, then RSS 1 s later (what a
  // process keeps once a burst is over, garbage included).
  log('\nMemory: RSS 1 s after a 10 s load of GET /api/me, each server alone')
  const afterLoad = new Map()
  for (const n of names) {
    const s = servers.get(n)
    await load({ url: `${s.url}/api/me`, headers: { authorization: `Bearer ${token}` }, duration: 10, connections: opts.connections, pid: s.pid })
    await sleep(1000)
    afterLoad.set(n, s.rssMb())
    log(`  ${n}: idle ${fmtMb(idle.get(n))} MB, 1 s after the load ${fmtMb(afterLoad.get(n))} MB`)
  }
  log('\nSession: GET /home (Trowel and its limit: GET /bench/home with a cookie from POST /login, `auth` in the `web` stack)')
  const session = await compare(
    names.map((n) => ({ name: n, url: servers.get(n).url + sessionPath(n), pid: servers.get(n).pid, prepare: async () => ({ cookie: await sessionCookie(n) }) })),
    opts,
  )
  log('\nLogin: POST /api/auth')
  const login = await compare(
    names.filter((n) => n !== TWIN).map((n) => ({
      name: n, url: `${servers.get(n).url}/api/auth`, method: 'POST', body: authBody, headers: { 'content-type': 'application/json' },
      pid: servers.get(n).pid, connections: loginConnections, timeout: 60,
    })),
    { ...opts, warmup: Math.min(opts.warmup, 3) },
  )

  // Hashing off the event loop: Trowel's JWT route alone, then while logins run beside it.
  log('\nTrowel: GET /api/me alone, then with POST /api/auth load beside it')
  const meLoad = { url: `${trowel.url}/api/me`, headers: { authorization: `Bearer ${token}` }, duration: opts.duration, connections: opts.connections, pid: trowel.pid }
  const alone = await load(meLoad)
  const [during, logins] = await Promise.all([
    load(meLoad),
    load({ url: `${trowel.url}/api/auth`, method: 'POST', body: authBody, headers: { 'content-type': 'application/json' }, duration: opts.duration, connections: loginConnections, timeout: 60 }),
  ])
  log(`  alone: ${fmtInt(alone.rps)} req/s, p99 ${fmtMs(alone.p99)} ms; with logins: ${fmtInt(during.rps)} req/s, p99 ${fmtMs(during.p99)} ms, logins ${fmtInt(logins.rps)}/s`)

  const peak = new Map([...servers].map(([n, s]) => [n, s.peakRssMb()]))
  for (const s of servers.values()) await s.stop()
  servers.clear()

  // Start-up: `node craft serve` until GET / answers 200 (the generated welcome page).
  log('\nTrowel start-up: node craft serve → first 200 on GET /')
  const startup = { pinned: [], unpinned: [] }
  for (let i = 0; i < 6; i++) {
    const mode = i % 2 === 0 ? 'pinned' : 'unpinned'
    startup[mode].push(await timeToFirst200(app.dir, mode === 'pinned'))
  }
  log(`  pinned to one core: ${startup.pinned.map((t) => t.toFixed(0)).join(', ')} ms; unpinned: ${startup.unpinned.map((t) => t.toFixed(0)).join(', ')} ms`)

  const report = render({ jwt, session, login, idle, afterLoad, peak, alone, during, logins, startup, names })
  log('\n' + report)
  writeResultsSection('peers', report)
  log(`\nwritten to bench/RESULTS.md`)
} finally {
  for (const s of servers.values()) await s.stop()
  app.cleanup()
  for (const file of [rawDb, peersDb]) rmSync(file, { force: true })
}

function render({ jwt, session, login, idle, afterLoad, peak, alone, during, logins, startup, names }) {
  const endpointTable = (title, results) => {
    const t = results.get('Trowel')
    const limit = results.get(LIMIT)
    const rows = names.filter((n) => results.has(n)).map((n) => {
      const r = results.get(n)
      const share = r.cpuShare === null ? 'n/a' : `${Math.round(r.cpuShare * 100)}`
      return [n, fmtInt(r.rps), fmtMs(r.p50), fmtMs(r.p99), share, fmtInt(r.perCpu), n === 'Trowel' ? '1.00' : fmtRatio(r.rps / t.rps), limit ? fmtRatio(pairedRatio(r, limit)) : 'n/a', String(r.bad)]
    })
    return `**${title}**\n\n` + table(['System', 'req/s', 'p50 ms', 'p99 ms', 'server CPU %', 'req per CPU-s', 'ratio to Trowel', 'per CPU-s ÷ limit (paired rounds)', 'failed'], rows)
  }
  const mem = table(
    ['System', 'idle RSS MB', 'RSS 1 s after a 10 s load MB', 'peak RSS MB', 'versions'],
    names.map((n) => [n, fmtMb(idle.get(n)), fmtMb(afterLoad.get(n)), fmtMb(peak.get(n)), versions(n)]),
  )
  const tr = (m) => m.get('Trowel')?.rps
  const ratio = (a, b) => (a && b ? a / b : null)
  const verdict = (value, target, higher = true) => (value === null ? 'n/a' : (higher ? value >= target : value <= target) ? 'met' : '**missed**')
  const jwtVsFastify = ratio(tr(jwt), jwt.get('Fastify')?.rps)
  const jwtVsRaw = ratio(tr(jwt), jwt.get('node:http (limit)')?.rps)
  const sessVsExpress = ratio(tr(session), session.get('Express')?.rps)
  const sessVsLimit = session.has(LIMIT) && session.has(TWIN) ? pairedRatio(session.get(TWIN), session.get(LIMIT)) : null
  const sessSelfVsLimit = session.has(LIMIT) ? pairedRatio(session.get('Trowel'), session.get(LIMIT)) : null
  const sessAhead = ['Fastify', 'Hono'].every((n) => session.has(n) && pairedRatio(session.get('Trowel'), session.get(n)) > 1)
  const loginVsExpress = ratio(tr(login), login.get('Express')?.rps)
  const idleTrowel = idle.get('Trowel')
  const afterTrowel = afterLoad.get('Trowel')
  const afterFastify = afterLoad.get('Fastify') ?? null
  const startPinned = median(startup.pinned)
  const startFree = median(startup.unpinned)
  const targets = table(
    ['Target', 'Measured', 'Verdict'],
    [
      ['JWT route ≥ 1.3× Fastify + @fastify/jwt', `${fmtRatio(jwtVsFastify)}×`, verdict(jwtVsFastify, 1.3)],
      ['JWT route ≥ 0.8× raw node:http + fast-jwt', `${fmtRatio(jwtVsRaw)}×`, verdict(jwtVsRaw, 0.8)],
      ['Session route ≥ 2× Express + express-session', `${fmtRatio(sessVsExpress)}×`, verdict(sessVsExpress, 2)],
      ['Session route ≥ 0.85× its limit (same work, per CPU-s, paired rounds; the twin: like the limit, it answered no login)', `${fmtRatio(sessVsLimit)}×`, verdict(sessVsLimit, 0.85)],
      ['(the process that answered the login itself, against the same limit)', `${fmtRatio(sessSelfVsLimit)}×`, ''],
      ['Session route ahead of Fastify and Hono (per CPU-s, paired rounds)', sessAhead ? 'yes' : 'no', sessAhead ? 'met' : '**missed**'],
      ['Login ≥ 4× the bcrypt-12 peer (Express + passport-local)', `${fmtRatio(loginVsExpress)}×`, verdict(loginVsExpress, 4)],
      ['Idle RSS ≤ 80 MB', `${fmtMb(idleTrowel)} MB`, verdict(idleTrowel, 80, false)],
      ['RSS 1 s after a 10 s load ≤ Fastify\'s (issue 21)', `${fmtMb(afterTrowel)} MB (Fastify ${fmtMb(afterFastify)} MB)`, afterFastify === null ? 'n/a' : verdict(afterTrowel, afterFastify, false)],
      ['`craft serve` to first 200 ≤ 1.5 s (Node 20)', `${fmtInt(startFree)} ms unpinned, ${fmtInt(startPinned)} ms on one core`, verdict(startFree === null ? null : startFree / 1000, 1.5, false)],
    ],
  )
  const impact = table(
    ['Trowel GET /api/me', 'req/s', 'p50 ms', 'p99 ms'],
    [
      ['alone', fmtInt(alone.rps), fmtMs(alone.p50), fmtMs(alone.p99)],
      [`with ${loginConnections} connections of POST /api/auth beside it (${fmtInt(logins.rps)} logins/s, p99 ${fmtMs(logins.p99)} ms)`, fmtInt(during.rps), fmtMs(during.p50), fmtMs(during.p99)],
    ],
  )
  return [
    `Run ${startedAt.toISOString()} — \`${commandLine('bench:peers')}\` — Node ${process.version}`,
    '',
    `Machine: ${machineLine}; load average at the end ${loadAverage().toFixed(2)}.`,
    `${opts.rounds} rounds × ${opts.duration} s per system and endpoint after a ${opts.warmup} s warm-up (login: ${Math.min(opts.warmup, 3)} s), systems rotating each round; medians of the rounds. ${opts.connections} connections (login: ${loginConnections}). "req per CPU-s" = requests ÷ CPU seconds the server process used (less sensitive to other load on the machine).`,
    failures.length ? `\nProblems in this run: ${failures.join('; ')}` : '',
    '',
    endpointTable('JWT — GET /api/me (HS512 Bearer token, user read from SQLite)', jwt),
    '',
    endpointTable(`Session — GET /home equivalent (cookie login, server-side session, user from SQLite; Trowel: POST /login on the generated defaults, GET /bench/home; the limit: the same cookies, decryption, checks and two reads on node:http; ${TWIN}: a second \`craft serve\` of the same app whose cookie comes from a login on the first, so that, like the limit and unlike the peers, it never answers a login)`, session),
    '',
    endpointTable('Login — POST /api/auth (Trowel and node:http: argon2id m=19456,t=2,p=1; peers: bcrypt cost 12)', login),
    '',
    '**Memory** (idle: RSS ≥ 15 s after start, before any load; after load: RSS 1 s after 10 s of GET /api/me, each server alone; peak: VmHWM at the end of the run)',
    '',
    mem,
    '',
    '**Login beside a JWT route** (password hashing on Trowel\'s hashing threads, nice 19 with a reserve at nice 5, on the same pinned core)',
    '',
    impact,
    '',
    `**\`node craft serve\` to the first 200 on GET /** (6 starts): unpinned ${startup.unpinned.map((t) => t.toFixed(0)).join(', ')} ms; pinned to core ${SERVER_CORE} ${startup.pinned.map((t) => t.toFixed(0)).join(', ')} ms`,
    '',
    '**Targets (issues 8 and 21)**',
    '',
    targets,
  ].join('\n')
}

function versions(name) {
  const v = (pkg, dir = PEERS) => {
    try {
      return `${pkg} ${JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version}`
    } catch {
      return `${pkg} ?`
    }
  }
  if (name === 'Trowel' || name === TWIN) return `trowel ${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}, ${v('fast-jwt', ROOT)}, ${v('@node-rs/argon2', ROOT)}`
  if (name.startsWith('node:http')) return `${v('fast-jwt', ROOT)}, ${v('@node-rs/argon2', ROOT)}, ${v('better-sqlite3', ROOT)}`
  const p = PEER_SERVERS.find((x) => x.name === name)
  return p ? [...p.packages, 'bcrypt'].map((x) => v(x)).join(', ') : ''
}

/** Milliseconds from spawning `node craft serve` to the first 200 on GET /. */
async function timeToFirst200(dir, pin) {
  const port = await freePort()
  const args = ['craft', 'serve', '--host', '127.0.0.1', '--port', String(port)]
  const [cmd, argv] = pin ? pinned(SERVER_CORE, args) : [process.execPath, args]
  const t0 = performance.now()
  const child = spawn(cmd, argv, { cwd: dir, stdio: 'ignore' })
  let alive = true
  child.once('exit', () => (alive = false))
  try {
    await waitFor(`http://127.0.0.1:${port}/`, { timeoutMs: 30_000, intervalMs: 5, isAlive: () => alive })
    return performance.now() - t0
  } finally {
    child.kill('SIGKILL')
    if (alive) await new Promise((r) => child.once('exit', r))
  }
}

/** `npm ci` in bench/peers when its node_modules is missing or older than its lock file. */
function installPeers() {
  const marker = join(PEERS, 'node_modules/.package-lock.json')
  const lock = join(PEERS, 'package-lock.json')
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return
  console.log('Installing the peer frameworks into bench/peers/node_modules (npm ci, first run only) ...')
  const r = spawnSync('npm', ['ci', '--prefix', PEERS, '--no-audit', '--no-fund'], { stdio: 'inherit', cwd: ROOT })
  if (r.status !== 0) {
    console.error('npm ci in bench/peers failed')
    process.exit(1)
  }
}
