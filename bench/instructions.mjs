#!/usr/bin/env node
// Instructions per request, counted by valgrind's callgrind: unlike time, a count does not move
// with other work on the machine, so two builds (or Trowel and its limit) compare on a shared,
// loaded machine. A proxy for CPU time, not a measure of it: it leaves out the kernel (the
// socket's system calls, paid alike by every server) and cache misses.
//
//   npm run bench:instructions [-- --requests 2000 --warmup 3000 --profile]
//
// The rows: `GET /bench/home` logged in (the session row of bench:session, the same app, cookies
// and limit), and `GET /bench/web-json` without a cookie against the limit's `GET /bench/json`
// (the bare web stack). Each server runs under `valgrind --tool=callgrind` (JIT code included),
// is warmed up, its counters zeroed (`callgrind_control -z`), then answers the measured requests
// from 8 keep-alive connections, and its counters are dumped (`callgrind_control -d`).
// `--profile` keeps the dumps (`callgrind_annotate <file>` lists the functions; JIT code shows
// as addresses) and prints their paths. `--cache` also simulates the caches (`--cache-sim=yes`,
// slower) and adds the misses per request: first-level instruction and data misses, and
// last-level misses, which cost far more than an instruction each.
import { spawn, execFileSync } from 'node:child_process'
import { readFileSync, readdirSync, rmSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import http from 'node:http'
import { copyUsers } from './lib/users-db.mjs'
import { ROOT, freePort, requireBuild, table, fmtInt, fmtRatio, waitFor, cleanEnv, machine, loadAverage } from './lib/common.mjs'
import { createTrowelApp, registerUser, webLogin } from './lib/trowel-app.mjs'

requireBuild()
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const REQUESTS = arg('requests', 2000)
const WARMUP = arg('warmup', 3000)
const keep = process.argv.includes('--profile')
const CACHE = process.argv.includes('--cache')
const out = mkdtempSync(join(tmpdir(), 'trowel-callgrind-'))
console.log(`Instructions per request (valgrind --tool=callgrind) — ${new Date().toISOString()}`)
console.log(machine())
console.log(`${fmtInt(WARMUP)} warm-up requests, then ${fmtInt(REQUESTS)} counted, 8 keep-alive connections\n`)

const app = createTrowelApp()
const usersDb = join(tmpdir(), `trowel-bench-cg-${process.pid}.sqlite`)
const children = new Set()
try {
  // A native server of the same app stays up to log in afresh before each count: a session or
  // login older than a minute is written back on every request, by both servers alike.
  const setup = await app.serve({ name: 'setup' })
  children.add({ kill: () => setup.kill() })
  await registerUser(setup.url)
  const cookie = await webLogin(setup.url)
  copyUsers(join(app.dir, 'storage/database.sqlite'), usersDb)
  const env = { USERS_DB: usersDb, APP_KEY: app.env().APP_KEY, TROWEL_DB: join(app.dir, 'storage/database.sqlite') }

  const trowel = await underCallgrind('trowel', ['craft', 'serve', '--host', '127.0.0.1'], app.dir, {})
  const limit = await underCallgrind('limit', [join(ROOT, 'bench/servers/raw.mjs')], ROOT, env)
  const [a, b] = await Promise.all([trowel, limit].map((s) => get(s.port, '/bench/home', cookie)))
  if (a.status !== 200 || a.status !== b.status || a.body !== b.body) throw new Error(`the two servers answer differently:\n  Trowel: ${a.status} ${a.body}\n  limit:  ${b.status} ${b.body}`)

  const rows = []
  for (const [label, trowelPath, limitPath, loggedIn] of [
    ['GET /bench/home, logged in', '/bench/home', '/bench/home', true],
    ['GET JSON, web stack, no cookie', '/bench/web-json', '/bench/json', false],
  ]) {
    const t = await count(trowel, trowelPath, loggedIn && (() => webLogin(setup.url)), label)
    const l = await count(limit, limitPath, loggedIn && (() => webLogin(setup.url)), label)
    rows.push([label, fmtInt(l.Ir), fmtInt(t.Ir), fmtRatio(l.Ir / t.Ir)])
    if (CACHE) {
      for (const [name, events] of [['first-level instruction misses', ['I1mr']], ['first-level data misses', ['D1mr', 'D1mw']], ['last-level misses', ['ILmr', 'DLmr', 'DLmw']]]) {
        const sum = (c) => events.reduce((n, e) => n + (c[e] ?? 0), 0)
        rows.push([`  ${name}`, fmtInt(sum(l)), fmtInt(sum(t)), fmtRatio(sum(l) / sum(t))])
      }
    }
  }
  console.log('\n' + table(['Request', 'limit, per request', 'Trowel', 'limit ÷ Trowel'], rows))
  console.log(`\nLoad average at the end ${loadAverage().toFixed(2)} (a count does not depend on it).`)
  if (keep) for (const f of readdirSync(out)) console.log(`callgrind dump: ${join(out, f)}`)
} finally {
  for (const c of children) c.kill('SIGKILL')
  app.cleanup()
  rmSync(usersDb, { force: true })
  if (!keep) rmSync(out, { recursive: true, force: true })
}

async function underCallgrind(name, args, cwd, env) {
  const port = await freePort()
  const portArgs = name === 'trowel' ? ['--port', String(port)] : []
  const child = spawn('valgrind', ['--tool=callgrind', '--collect-atstart=yes', ...(CACHE ? ['--cache-sim=yes'] : []), `--callgrind-out-file=${join(out, `${name}.%p.out`)}`, 'node', ...args, ...portArgs], {
    cwd,
    env: { ...cleanEnv(), ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  children.add(child)
  let err = ''
  child.stderr.on('data', (c) => (err = (err + c).slice(-8000)))
  try {
    await waitFor(`http://127.0.0.1:${port}/bench/json`, { timeoutMs: 600_000, intervalMs: 500, isAlive: () => child.exitCode === null })
  } catch (error) {
    throw new Error(`${name} did not start under valgrind: ${error.message}\n${err}`, { cause: error })
  }
  return { name, port, pid: child.pid }
}

async function count(server, path, login, label) {
  await drive(server.port, path, login ? await login() : undefined, WARMUP)
  const cookie = login ? await login() : undefined
  execFileSync('callgrind_control', ['-z', String(server.pid)], { stdio: 'ignore' })
  await drive(server.port, path, cookie, REQUESTS)
  const before = new Set(readdirSync(out))
  execFileSync('callgrind_control', ['-d', `${label}`, String(server.pid)], { stdio: 'ignore' })
  const dump = readdirSync(out).find((f) => !before.has(f) && f.startsWith(`${server.name}.${server.pid}.out.`))
  const text = readFileSync(join(out, dump), 'utf8')
  // One count per event of the `events:` line (Ir alone, or with the cache simulation's).
  const names = (/^events: (.+)$/m.exec(text)?.[1] ?? 'Ir').trim().split(/\s+/)
  const totals = (/^(?:summary|totals): (.+)$/m.exec(text)?.[1] ?? '').trim().split(/\s+/).map(Number)
  const perRequest = Object.fromEntries(names.map((n, i) => [n, (totals[i] ?? 0) / REQUESTS]))
  console.log(`  ${server.name} ${path}: ${fmtInt(perRequest.Ir)} instructions per request`)
  return perRequest
}

function get(port, path, cookie, agent) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent, headers: cookie ? { cookie } : {} }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode, body, setCookie: res.headers['set-cookie'] ?? [] }))
    })
    req.on('error', reject)
  })
}

/**
 * `n` requests from 8 keep-alive connections, keeping the cookies the server sets, as a browser
 * does: under valgrind a count can outlast the minute after which a session is written back, and
 * a client that kept sending the first cookie would have every later request rewrite it.
 */
async function drive(port, path, cookie, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
  const jar = new Map((cookie ?? '').split(';').map((c) => c.trim()).filter(Boolean).map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)]))
  let left = n
  const worker = async () => {
    while (left-- > 0) {
      const header = [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
      const r = await get(port, path, header || undefined, agent)
      if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${r.body}`)
      for (const line of r.setCookie) {
        const pair = line.split(';')[0]
        jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1))
      }
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  agent.destroy()
}
