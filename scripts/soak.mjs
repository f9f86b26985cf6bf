#!/usr/bin/env node
// Opt-in load and soak run (`npm run test:soak`), loopback only, bounded in time: a generated
// app with web auth and the JWT API on SQLite (or DB_CONNECTION/DATABASE_URL), served by
// `node craft serve`, then autocannon:
//   1. three rounds of GET /api/me (Bearer JWT) and POST /api/auth (argon2id logins): 0 errors,
//      0 non-2xx, and resident memory after round 3 within 25 % (+16 MB, +32 MB for each thread
//      started since) of round 1;
//   2. the JWT route's p99 latency idle, then while 20 logins hash in the background, three pairs
//      of runs compared by their medians: within 3x.
//      Latencies are taken from autocannon's 'response' events, to the microsecond: its own
//      histogram keeps whole milliseconds, so a p99 of 1.9 ms would read 1 ms.
// SOAK_SECONDS (default 4) sets each autocannon run's duration. SOAK_LATENCY=report prints the
// p99 comparison without failing on it, from one idle/busy pair instead of three (the median of
// three is there to make the checked comparison stable; the pair still checks that the JWT route
// answers without errors while logins hash). npm test runs this script that way (test/reliability/
// load.test.ts; timed assertions do not belong in a suite that shares its machine). Exit code 0
// when every check holds.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import autocannon from 'autocannon'
import { applyApiSteps, applyAuthSteps, disableLoginBudgets } from './seed-steps.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const SECONDS = Number(process.env.SOAK_SECONDS ?? 4)
const PASSWORD = 'correct horse battery staple'
const failures = []
const check = (ok, message) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${message}`)
  if (!ok) failures.push(message)
}
const REPORT_LATENCY = process.env.SOAK_LATENCY === 'report'
const PAIRS = REPORT_LATENCY ? 1 : 3

const parent = mkdtempSync(join(tmpdir(), 'trowel-soak-'))
const dir = join(parent, 'app')
const env = { ...process.env, APP_DEBUG: 'false' }
delete env.NODE_OPTIONS
function craft(args, cwd = dir) {
  const r = spawnSync(process.execPath, args[0] === 'new' ? [join(ROOT, 'bin/craft.js'), ...args] : ['craft', ...args], { cwd, env, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`craft ${args.join(' ')} failed: ${r.stderr}${r.stdout}`)
  return r
}

let child
try {
  craft(['new', dir], parent)
  applyAuthSteps(dir, craft)
  applyApiSteps(dir, craft)
  // The load logs in thousands of times as one user from one address: no budgets.
  disableLoginBudgets(dir)
  // It measures how logins share the CPU with the API, not the wait limit: on a busy machine
  // 20 logins from one address may queue past the default 2 s and be answered 503.
  const authConfig = join(dir, 'config/auth.ts')
  writeFileSync(authConfig, readFileSync(authConfig, 'utf8').replace("default: 'web',", "default: 'web',\n  hashing: { max_wait: 60_000 },"))
  craft(['migrate'])

  // As the benchmarks do: the server on one core, this process (the load) on another, so the
  // latency compared is the server's and not the load generator's share of the CPU.
  const pin = availableParallelism() >= 2 && spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0
  if (pin) spawnSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' })
  child = pin
    ? spawn('taskset', ['-c', '0', process.execPath, 'craft', 'serve', '--port', '0'], { cwd: dir, env })
    : spawn(process.execPath, ['craft', 'serve', '--port', '0'], { cwd: dir, env })
  const url = await new Promise((resolveUrl, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000)
    const onData = (d) => {
      out += d
      const m = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolveUrl(m[1])
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)))
  })
  console.log(`serving ${url} (pid ${child.pid}${pin ? ', pinned to core 0; load on core 1' : ''}), ${SECONDS} s per run`)

  // Register one user through the form (session cookie + CSRF), then get a JWT.
  const page = await fetch(`${url}/register`)
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
  const csrf = /name="__token" value="([^"]+)"/.exec(await page.text())[1]
  const reg = await fetch(`${url}/register`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ __token: csrf, name: 'Soak', email: 'soak@example.test', password: PASSWORD, password_confirmation: PASSWORD }),
  })
  if (reg.headers.get('location') !== '/home') throw new Error(`registration failed: ${reg.status}`)
  const loginBody = JSON.stringify({ username: 'soak@example.test', password: PASSWORD })
  const token = (await (await fetch(`${url}/api/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: loginBody })).json()).data

  const jwtRun = (connections = 10) => autocannon({ url: `${url}/api/me`, connections, duration: SECONDS, headers: { authorization: `Bearer ${token}` } })
  // The JWT route's p99 in ms, from every 2xx response's own time (autocannon's histogram rounds down to whole ms).
  const jwtP99 = async (connections) => {
    const times = []
    const run = jwtRun(connections)
    run.on('response', (_client, status, _bytes, ms) => status < 300 && times.push(ms))
    const result = await run
    times.sort((a, b) => a - b)
    return { result, p99: times[Math.min(times.length - 1, Math.ceil(0.99 * times.length) - 1)] ?? Infinity }
  }
  const loginRun = () => autocannon({ url: `${url}/api/auth`, method: 'POST', connections: 4, duration: SECONDS, headers: { 'content-type': 'application/json' }, body: loginBody })
  const status = () => readFileSync(`/proc/${child.pid}/status`, 'utf8')
  const field = (text, name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0)

  // The server's resident memory after each round, and its thread count: a hashing thread started
  // since round 1 (the pool grows to its size, and a reserve thread joins it when a busy machine
  // starves the others) holds its own V8 heap and argon2's 19 MiB while it lives (it stops after
  // 30 s idle), which is not growth of what the server keeps per request.
  const PER_THREAD_KB = 32 * 1024
  const rss = []
  const threads = []
  for (let round = 1; round <= 3; round++) {
    const [jwt, login] = await Promise.all([jwtRun(), loginRun()])
    for (const [name, r] of [['JWT', jwt], ['login', login]]) {
      check(r.errors === 0 && r.timeouts === 0 && r.non2xx === 0, `round ${round} ${name}: ${r.requests.total} requests, ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx, p99 ${r.latency.p99} ms`)
    }
    const text = status()
    rss.push(field(text, 'VmRSS'))
    threads.push(field(text, 'Threads'))
    console.log(`     round ${round}: RSS ${(rss.at(-1) / 1024).toFixed(1)} MB, ${threads.at(-1)} threads`)
  }
  const newThreads = Math.max(0, threads[2] - threads[0])
  check(
    rss[2] <= rss[0] * 1.25 + 16 * 1024 + newThreads * PER_THREAD_KB,
    `memory: RSS ${(rss[0] / 1024).toFixed(1)} MB after round 1, ${(rss[2] / 1024).toFixed(1)} MB after round 3 (${newThreads} thread${newThreads === 1 ? '' : 's'} more, ${PER_THREAD_KB / 1024} MB allowed each)`,
  )

  // Three pairs of runs, idle then beside 20 logins, compared by their medians: one p99 is a
  // handful of requests (a GC pause, a timer) and varies by tens of percent between runs. One pair
  // when the comparison is only reported.
  const idle = []
  const busy = []
  let logins = 0
  let loginErrors = 0
  for (let pair = 0; pair < PAIRS; pair++) {
    idle.push(await jwtP99(4))
    let stop = false
    const hashing = Array.from({ length: 20 }, async () => {
      while (!stop) {
        const r = await fetch(`${url}/api/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: loginBody }).catch(() => null)
        if (r?.status === 200) logins++
        else loginErrors++
        await r?.arrayBuffer()
      }
    })
    await new Promise((r) => setTimeout(r, 300))
    busy.push(await jwtP99(4))
    stop = true
    await Promise.all(hashing)
  }
  check(loginErrors === 0 && logins > 0, `${logins} logins completed in the background, ${loginErrors} failed`)
  const runs = [...idle, ...busy].map((r) => r.result)
  check(runs.every((r) => r.errors === 0 && r.non2xx === 0), `JWT route under login load: ${busy.map((r) => r.result.requests.total).join(', ')} requests (${idle.map((r) => r.result.requests.total).join(', ')} idle), ${runs.reduce((n, r) => n + r.errors + r.non2xx, 0)} errors or non-2xx`)
  const median = (list) => list.map((r) => r.p99).sort((a, b) => a - b)[Math.floor(list.length / 2)]
  const [idleP99, busyP99] = [median(idle), median(busy)]
  const within = busyP99 <= 3 * idleP99
  const ms = (list) => list.map((r) => r.p99.toFixed(2)).join(', ')
  const latency = `JWT p99 idle ${idleP99.toFixed(2)} ms (median of ${ms(idle)}), with 20 logins hashing ${busyP99.toFixed(2)} ms (of ${ms(busy)}): ${(busyP99 / idleP99).toFixed(1)}x, limit 3x`
  if (REPORT_LATENCY) console.log(`info ${latency}: ${within ? 'within' : 'over'} the limit (reported, not checked)`)
  else check(within, latency)
} catch (error) {
  failures.push(String(error?.stack ?? error))
  console.error(error)
} finally {
  child?.kill('SIGTERM')
  await new Promise((r) => (child && child.exitCode === null ? child.once('exit', r) : r()))
  rmSync(parent, { recursive: true, force: true })
}
console.log(failures.length === 0 ? 'soak: all checks passed' : `soak: ${failures.length} check(s) failed`)
process.exit(failures.length === 0 ? 0 : 1)
