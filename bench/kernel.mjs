#!/usr/bin/env node
// Issue 2's benchmark: req/s of a JSON route through the full Trowel kernel (a generated app
// served by `node craft serve`: router, context, middleware pipeline, controller, result, send)
// beside plain node:http answering the same bytes, in the same run. Servers pinned to one core,
// autocannon from the other, a warm-up, then alternating rounds. Target: Trowel >= 0.85 × raw.
//
//   npm run bench:kernel [-- --rounds 3 --duration 10 --warmup 5 --connections 50]
//
// The route (`Route.get('/bench/json', 'BenchController@json').withoutMiddleware('web')`) runs
// no session; the same controller inside the `web` stack (session, CSRF) is shown too, and inside
// the `web` stack of an app with the seed's web auth (session, CSRF, InitializeAuthMiddleware),
// requested without a cookie (issue 21's `GET /hello`: target >= 0.85 × raw).
import { join } from 'node:path'
import { ROOT, compare, pairedRatio, freePort, machine, requireBuild, settings, startServer, table, fmtInt, fmtMs, fmtRatio, writeResultsSection, commandLine, loadAverage } from './lib/common.mjs'
import { createTrowelApp } from './lib/trowel-app.mjs'

requireBuild()
const opts = settings()
const startedAt = new Date()
const machineLine = machine()
console.log(`Trowel kernel vs node:http — ${startedAt.toISOString()}`)
console.log(machineLine)
console.log(`${opts.rounds} rounds × ${opts.duration} s after a ${opts.warmup} s warm-up, ${opts.connections} connections\n`)

const app = createTrowelApp({ auth: false, api: false })
const authApp = createTrowelApp({ api: false })
const servers = []
try {
  const trowel = await app.serve()
  servers.push(trowel)
  const withAuth = await authApp.serve({ name: 'trowel (web auth)' })
  servers.push(withAuth)
  const rawPort = await freePort()
  const raw = await startServer({ name: 'raw', args: [join(ROOT, 'bench/servers/raw.mjs')], env: { PORT: String(rawPort) }, readyUrl: `http://127.0.0.1:${rawPort}/bench/json` })
  servers.push(raw)

  const same = await Promise.all([`${trowel.url}/bench/json`, `http://127.0.0.1:${rawPort}/bench/json`].map(async (u) => (await fetch(u)).text()))
  if (same[0] !== same[1]) throw new Error(`the two servers answer differently: ${same[0]} vs ${same[1]}`)

  const results = await compare(
    [
      { name: 'node:http', url: `http://127.0.0.1:${rawPort}/bench/json`, pid: raw.pid },
      { name: 'Trowel kernel', url: `${trowel.url}/bench/json`, pid: trowel.pid },
      { name: 'Trowel, web stack', url: `${trowel.url}/bench/web-json`, pid: trowel.pid },
      { name: 'Trowel, web stack + web auth, no cookie', url: `${withAuth.url}/bench/web-json`, pid: withAuth.pid },
    ],
    opts,
  )
  const base = results.get('node:http')
  const rows = [...results].map(([name, r]) => [
    name, fmtInt(r.rps), fmtMs(r.p50), fmtMs(r.p99), r.rounds.map(fmtInt).join(' / '), fmtRatio(r.rps / base.rps),
    r.cpuShare === null ? 'n/a' : String(Math.round(r.cpuShare * 100)), fmtInt(r.perCpu), fmtRatio(pairedRatio(r, base)), r.bad ? String(r.bad) : '0',
  ])
  const tableText = table(['GET JSON route', 'req/s (median)', 'p50 ms', 'p99 ms', 'rounds req/s', 'ratio', 'server CPU %', 'req per CPU-s', 'per CPU-s ÷ node:http (paired rounds)', 'failed'], rows)
  console.log('\n' + tableText)
  const t = results.get('Trowel kernel')
  const ratio = t.rps / base.rps
  const w = results.get('Trowel, web stack + web auth, no cookie')
  const webRatio = w.rps / base.rps
  const webPaired = pairedRatio(w, base)
  // Below ~90 % busy the load generator, not the server, set the pace: req/s ratios then measure
  // autocannon, and per-CPU-s ratios are diluted by the per-wake-up cost both servers pay.
  const busiest = Math.min(...[...results.values()].map((r) => r.cpuShare ?? 0))
  const verdict = [
    `Trowel kernel / node:http = ${fmtRatio(ratio)} in req/s (target ≥ 0.85: ${ratio >= 0.85 ? 'met' : '**missed**'}); ${fmtRatio(pairedRatio(t, base))} per server CPU-second (paired rounds).`,
    `Web stack + web auth, no cookie / node:http = ${fmtRatio(webRatio)} in req/s; ${fmtRatio(webPaired)} per server CPU-second, paired rounds (target ≥ 0.85: ${webPaired >= 0.85 ? 'met' : '**missed**'} per CPU-second).`,
    ...(busiest < 0.9 ? [`Not at the limit: a server was only ${Math.round(busiest * 100)} % busy, so autocannon set the pace; read these ratios as upper bounds (bench/README.md).`] : []),
  ].join('\n')
  console.log('\n' + verdict)
  writeResultsSection('kernel', [
    `Run ${startedAt.toISOString()} — \`${commandLine('bench:kernel')}\` — Node ${process.version}`,
    '',
    `Machine: ${machineLine}; load average at the end ${loadAverage().toFixed(2)}.`,
    `${opts.rounds} rounds × ${opts.duration} s after a ${opts.warmup} s warm-up, ${opts.connections} connections, order rotating each round; medians. "Trowel kernel": \`Route.get('/bench/json', 'BenchController@json').withoutMiddleware('web')\` in a generated app served by \`node craft serve\`; "web stack": the same controller inside the \`web\` stack (session, CSRF); "+ web auth": the same in an app with the seed's web auth (\`web\` = session, CSRF, InitializeAuthMiddleware), no cookie sent.`,
    '',
    tableText,
    '',
    verdict,
  ].join('\n'))
  console.log('written to bench/RESULTS.md')
} finally {
  for (const s of servers) await s.stop()
  app.cleanup()
  authApp.cleanup()
}
