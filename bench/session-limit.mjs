#!/usr/bin/env node
// The logged-in web request against its raw limit, alone (the session row of `bench:peers`
// without the peer frameworks, so it runs without bench/peers/node_modules):
//
//   npm run bench:session [-- --rounds 5 --duration 10 --warmup 5 --connections 50 --profile]
//
// Trowel: a generated app with the seed's web auth on its defaults (cookie session driver, web
// guard, remember-me off), logged in through POST /login, `GET /bench/home` (`auth` in the `web`
// stack) answering `{"data": user}`. The limit: bench/servers/raw.mjs's `GET /bench/home`
// (trowel-session.mjs), the same work on the same cookies and database file. One fresh login per
// round, used by both servers; the two bodies must be byte-identical before anything is measured.
// Trowel runs twice: the process that answers the login (as a single server would), and a twin
// process of the same app whose cookie comes from that login, so that, like the limit, it never
// answers a login itself; a process that has answered one serves this request some per cent
// slower afterwards (bench/RESULTS.md, "the login effect"). The target is read on the twin.
// Both servers pinned to one core, autocannon on the other, the order rotating each round. The
// figure to read is the paired ratio of requests per server CPU-second (each round's two runs
// ran back to back), and only when both servers were near 100 % busy (see bench/README.md).
// `--profile`: both servers run under `node --cpu-prof`; the .cpuprofile files are left in the
// app's folder (`profiles/` for Trowel, `profiles-limit/` for the limit) and their paths printed
// (the app folder is then kept).
import { join } from 'node:path'
import { readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { copyUsers } from './lib/users-db.mjs'
import { ROOT, compare, freePort, machine, requireBuild, settings, startServer, table, fmtInt, fmtMs, fmtRatio, pairedRatio, loadAverage } from './lib/common.mjs'
import { createTrowelApp, registerUser, webLogin } from './lib/trowel-app.mjs'

requireBuild()
const opts = settings({ rounds: 3, duration: 10, warmup: 5 })
const profile = process.argv.includes('--profile')
console.log(`Trowel logged-in web request vs its raw limit — ${new Date().toISOString()}`)
console.log(machine())
console.log(`${opts.rounds} rounds × ${opts.duration} s after a ${opts.warmup} s warm-up, ${opts.connections} connections\n`)

const app = createTrowelApp()
const usersDb = join(tmpdir(), `trowel-bench-session-${process.pid}.sqlite`)
const servers = []
let keep = false
try {
  const setup = await app.serve({ name: 'setup' })
  await registerUser(setup.url)
  await setup.stop()
  copyUsers(join(app.dir, 'storage/database.sqlite'), usersDb)
  const trowel = profile ? await profiled(app) : await app.serve({ name: 'Trowel' })
  servers.push(trowel)
  const twin = profile ? null : await app.serve({ name: 'Trowel (twin)' })
  if (twin) servers.push(twin)
  const port = await freePort()
  const limit = await startServer({
    name: 'limit',
    args: [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${join(app.dir, 'profiles-limit')}`] : []), join(ROOT, 'bench/servers/raw.mjs')],
    env: { PORT: String(port), USERS_DB: usersDb, APP_KEY: app.env().APP_KEY, TROWEL_DB: join(app.dir, 'storage/database.sqlite') },
    readyUrl: `http://127.0.0.1:${port}/bench/json`,
  })
  limit.url = `http://127.0.0.1:${port}`
  servers.push(limit)

  const cookie = await webLogin(trowel.url)
  const [a, b, c = a] = await Promise.all([trowel, limit, ...(twin ? [twin] : [])].map(async (s) => {
    const r = await fetch(`${s.url}/bench/home`, { headers: { cookie } })
    return `${r.status} ${await r.text()}`
  }))
  if (a !== b || a !== c || !a.startsWith('200 ')) throw new Error(`the servers answer differently:\n  Trowel: ${a}\n  limit:  ${b}\n  twin:   ${c}`)
  console.log(`All answer, byte for byte: ${a.slice(4)}\n`)

  const prepare = async () => ({ cookie: await webLogin(trowel.url) })
  const results = await compare(
    [
      { name: 'node:http (limit)', url: `${limit.url}/bench/home`, pid: limit.pid, prepare },
      { name: 'Trowel', url: `${trowel.url}/bench/home`, pid: trowel.pid, prepare },
      ...(twin ? [{ name: 'Trowel (twin)', url: `${twin.url}/bench/home`, pid: twin.pid, prepare }] : []),
    ],
    opts,
  )
  const base = results.get('node:http (limit)')
  const rows = [...results].map(([name, r]) => [
    name, fmtInt(r.rps), fmtMs(r.p50), fmtMs(r.p99), r.cpuShare === null ? 'n/a' : String(Math.round(r.cpuShare * 100)),
    r.perCpuRounds.map(fmtInt).join(' / '), fmtRatio(pairedRatio(r, base)), String(r.bad),
  ])
  console.log('\n' + table(['GET /bench/home', 'req/s', 'p50 ms', 'p99 ms', 'server CPU %', 'req per CPU-s, rounds', 'per CPU-s ÷ limit (paired)', 'failed'], rows))
  console.log(`\nLoad average at the end ${loadAverage().toFixed(2)}. On a shared machine only the paired ratio means anything, and it is noisy too.`)
  if (profile) {
    await trowel.stop()
    await limit.stop()
    for (const name of ['profiles', 'profiles-limit']) {
      const dir = join(app.dir, name)
      for (const f of readdirSync(dir)) console.log(`profile (${name === 'profiles' ? 'Trowel' : 'limit'}): ${join(dir, f)}`)
    }
    keep = true
  }
} finally {
  for (const s of servers) await s.stop()
  if (!keep) app.cleanup()
  rmSync(usersDb, { force: true })
}

/** `node --cpu-prof craft serve` in the app's folder (node refuses --cpu-prof in NODE_OPTIONS). */
async function profiled(app) {
  const port = await freePort()
  const server = await startServer({
    name: 'Trowel',
    args: ['--cpu-prof', `--cpu-prof-dir=${join(app.dir, 'profiles')}`, 'craft', 'serve', '--host', '127.0.0.1', '--port', String(port)],
    cwd: app.dir,
    readyUrl: `http://127.0.0.1:${port}/bench/json`,
  })
  server.url = `http://127.0.0.1:${port}`
  return server
}
