#!/usr/bin/env node
// Issue 6's benchmark: a JWT-protected route through the full `api` stack of a generated app
// (the seed's steps: JWTAuthenticationMiddleware + LoadUserMiddleware; `GET /api/me` answering
// `{"data": request.user()}`) with `authenticates: false` and `true`, beside plain node:http
// doing the same work (fast-jwt HS512 verification with its cache, as Trowel; the same user read
// from SQLite; the same JSON), in the same run. Target: >= 0.8 of that limit with `false`.
//
//   npm run bench:jwt [-- --rounds 3 --duration 10 --warmup 5 --connections 50]
import { join } from 'node:path'
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { ROOT, compare, pairedRatio, freePort, machine, requireBuild, settings, startServer, table, fmtInt, fmtMs, fmtRatio, writeResultsSection, commandLine, loadAverage } from './lib/common.mjs'
import { createTrowelApp, registerUser, apiToken } from './lib/trowel-app.mjs'
import { copyUsers } from './lib/users-db.mjs'

requireBuild()
const opts = settings()
const startedAt = new Date()
const machineLine = machine()
console.log(`Trowel JWT route vs node:http + fast-jwt — ${startedAt.toISOString()}`)
console.log(machineLine)
console.log(`${opts.rounds} rounds × ${opts.duration} s after a ${opts.warmup} s warm-up, ${opts.connections} connections\n`)

// `authenticates` comes from the environment so that one app serves both settings.
const app = createTrowelApp({
  editApiConfig: (t) =>
    t
      .replace('authenticates: false', "authenticates: env('BENCH_JWT_AUTHENTICATES', false) === true")
      // `revocation: 'epoch'` (token epochs kept in memory) for the epoch row only.
      .replace('version: null', "version: null, revocation: env('BENCH_JWT_REVOCATION', '') === 'epoch' ? 'epoch' : null, store: env('BENCH_JWT_STORE', 'column')"),
})
// The users' token_epoch columns, for the epoch row.
app.craft(['migration', 'add_token_epoch_to_users'])
// The api_tokens table, for the token-families row (store: 'table').
app.craft(['migration', 'create_api_tokens_table'])
app.craft(['migrate'])
const servers = []
const usersDb = join(tmpdir(), `trowel-bench-raw-${process.pid}.sqlite`)
try {
  const off = await app.serve({ name: 'trowel (authenticates: false)' })
  servers.push(off)
  await registerUser(off.url)
  const epoch = await app.serve({ name: 'trowel (revocation: epoch)', env: { BENCH_JWT_REVOCATION: 'epoch' } })
  servers.push(epoch)
  // Its own token (with `uep`), issued first: the last one issued is the current one that the
  // `authenticates: true` server checks.
  const epochToken = await apiToken(epoch.url)
  const token = await apiToken(off.url)
  const on = await app.serve({ name: 'trowel (authenticates: true)', env: { BENCH_JWT_AUTHENTICATES: 'true' } })
  servers.push(on)
  // Token families: its token is its family's current one (the users' column is not touched).
  const families = await app.serve({ name: "trowel (store: 'table', authenticates: true)", env: { BENCH_JWT_AUTHENTICATES: 'true', BENCH_JWT_STORE: 'table' } })
  servers.push(families)
  const familyToken = await apiToken(families.url)
  // Prometheus metrics on (GET /metrics served, every request counted and timed).
  const metered = await app.serve({ name: 'trowel (metrics on)', env: { METRICS_TOKEN: 'bench-metrics-token-0123456789abcdef' } })
  servers.push(metered)

  copyUsers(join(app.dir, 'storage/database.sqlite'), usersDb)
  const rawPort = await freePort()
  const raw = await startServer({
    name: 'raw',
    args: [join(ROOT, 'bench/servers/raw.mjs')],
    env: { PORT: String(rawPort), JWT_SECRET: app.env().JWT_SECRET, USERS_DB: usersDb },
    readyUrl: `http://127.0.0.1:${rawPort}/bench/json`,
  })
  servers.push(raw)
  const rawUrl = `http://127.0.0.1:${rawPort}`

  const headers = { authorization: `Bearer ${token}` }
  const bodies = await Promise.all(
    [`${off.url}/api/me`, `${metered.url}/api/me`, `${on.url}/api/me`, `${rawUrl}/api/me`, `${rawUrl}/api/me-checked`, `${epoch.url}/api/me`, `${families.url}/api/me`].map(async (u) => {
      const own = u.startsWith(epoch.url) ? epochToken : u.startsWith(families.url) ? familyToken : token
      const r = await fetch(u, { headers: { authorization: `Bearer ${own}` } })
      if (r.status !== 200) throw new Error(`${u} answered ${r.status}`)
      return r.text()
    }),
  )
  if (new Set(bodies).size !== 1) throw new Error(`the servers answer differently:\n${bodies.join('\n')}`)

  const results = await compare(
    [
      { name: 'node:http + fast-jwt', url: `${rawUrl}/api/me`, headers, pid: raw.pid },
      { name: 'Trowel, authenticates: false', url: `${off.url}/api/me`, headers, pid: off.pid },
      { name: 'Trowel, authenticates: false, metrics on', url: `${metered.url}/api/me`, headers, pid: metered.pid },
      { name: "Trowel, authenticates: false, revocation: 'epoch'", url: `${epoch.url}/api/me`, headers: { authorization: `Bearer ${epochToken}` }, pid: epoch.pid },
      { name: 'node:http + fast-jwt + digest check', url: `${rawUrl}/api/me-checked`, headers, pid: raw.pid },
      { name: 'Trowel, authenticates: true', url: `${on.url}/api/me`, headers, pid: on.pid },
      { name: "Trowel, authenticates: true, store: 'table'", url: `${families.url}/api/me`, headers: { authorization: `Bearer ${familyToken}` }, pid: families.pid },
    ],
    opts,
  )
  const limit = results.get('node:http + fast-jwt')
  const checked = results.get('node:http + fast-jwt + digest check')
  const rows = [...results].map(([name, r]) => {
    const base = name.includes('true') || name.includes('digest') ? checked : limit
    return [name, fmtInt(r.rps), fmtMs(r.p50), fmtMs(r.p99), r.rounds.map(fmtInt).join(' / '), fmtRatio(r.rps / base.rps), fmtInt(r.perCpu), fmtRatio(r.perCpu / base.perCpu), String(r.bad)]
  })
  const tableText = table(['GET /api/me (JWT + user)', 'req/s (median)', 'p50 ms', 'p99 ms', 'rounds req/s', 'ratio to its raw limit', 'req per CPU-s', 'ratio per CPU-s', 'failed'], rows)
  console.log('\n' + tableText)
  const offR = results.get('Trowel, authenticates: false')
  const onR = results.get('Trowel, authenticates: true')
  const epochR = results.get("Trowel, authenticates: false, revocation: 'epoch'")
  const tableR = results.get("Trowel, authenticates: true, store: 'table'")
  const meteredR = results.get('Trowel, authenticates: false, metrics on')
  const meteredRatio = meteredR.rps / offR.rps
  const tableRatio = tableR.rps / onR.rps
  const epochRatio = epochR.rps / offR.rps
  const ratio = offR.rps / limit.rps
  // Paired: the median over rounds of the two cases' ratio within each round (see pairedRatio).
  const pairedEpoch = pairedRatio(epochR, offR)
  const pairedMetered = pairedRatio(meteredR, offR)
  const pairedTable = pairedRatio(tableR, onR)
  const met = (value, target) => (value >= target ? 'met' : '**missed**')
  const verdict = [
    `\`authenticates: false\` / node:http + fast-jwt = ${fmtRatio(ratio)} in req/s (target ≥ 0.9: ${met(ratio, 0.9)}); ${fmtRatio(offR.perCpu / limit.perCpu)} per server CPU-second (${met(offR.perCpu / limit.perCpu, 0.9)}).`,
    `\`revocation: 'epoch'\` / plain \`authenticates: false\` = ${fmtRatio(epochRatio)} in req/s; ${fmtRatio(epochR.perCpu / offR.perCpu)} per server CPU-second; paired per CPU-second ${fmtRatio(pairedEpoch)} (target ≥ 0.95: ${met(pairedEpoch, 0.95)}).`,
    `Metrics on / off, both \`authenticates: false\` = ${fmtRatio(meteredRatio)} in req/s; ${fmtRatio(meteredR.perCpu / offR.perCpu)} per server CPU-second; paired per CPU-second ${fmtRatio(pairedMetered)} (target ≥ 0.97: ${met(pairedMetered, 0.97)}).`,
    `\`authenticates: true\` / node:http + fast-jwt = ${fmtRatio(onR.rps / limit.rps)}; / the same plus the digest check = ${fmtRatio(onR.rps / checked.rps)} (${fmtRatio(onR.perCpu / checked.perCpu)} per CPU-second).`,
    `\`store: 'table'\` / the column store, both \`authenticates: true\` = ${fmtRatio(tableRatio)} in req/s; ${fmtRatio(tableR.perCpu / onR.perCpu)} per server CPU-second; paired per CPU-second ${fmtRatio(pairedTable)} (target ≥ 0.9: ${met(pairedTable, 0.9)}).`,
    'Paired: the median over rounds of the two servers\' requests per CPU-second in the same round; the medians of separate rounds drift with the shared machine by more than these targets\' margins.',
  ].join('\n')
  console.log('\n' + verdict)
  writeResultsSection('jwt', [
    `Run ${startedAt.toISOString()} — \`${commandLine('bench:jwt')}\` — Node ${process.version}`,
    '',
    `Machine: ${machineLine}; load average at the end ${loadAverage().toFixed(2)}.`,
    `${opts.rounds} rounds × ${opts.duration} s after a ${opts.warmup} s warm-up, ${opts.connections} connections, order rotating each round; medians. Trowel: a generated app with the seed's steps (\`api: [JWTAuthenticationMiddleware, LoadUserMiddleware]\`), \`GET /api/me\` → \`{ data: request.user() }\`. node:http: fast-jwt HS512 with a 1000-token cache, the user by id from a copy of the same SQLite table (prepared statement), the same JSON.`,
    '',
    tableText,
    '',
    verdict,
  ].join('\n'))
  console.log('written to bench/RESULTS.md')
} finally {
  for (const s of servers) await s.stop()
  app.cleanup()
  rmSync(usersDb, { force: true })
}
