#!/usr/bin/env node
// The logged-in web request's cost in Trowel's own code, without the socket: the session row of
// `bench:session` run in one process, Trowel's request handler against the raw limit's `home()`
// (the same decryption, checks and reads on the same cookies and database file), each fed the
// same request through stand-ins for node's request and response.
//
//   npm run bench:handler [-- --rounds 6 --requests 40000]
//
// What it measures is what `bench:session` cannot separate on a shared machine: the work a
// framework adds per request (routing, context, middleware, model), in microseconds, rounds
// alternating which runs first, pinned to one core. What it leaves out — node:http's parser,
// the socket's system calls — is the same for both servers, so the ratio here is stricter than
// the one over a socket. Both bodies are compared byte for byte first.
import { join } from 'node:path'
import { writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { spawnSync } from 'node:child_process'
import { ROOT, machine, requireBuild, settings, median, table, fmtRatio, loadAverage, SERVER_CORE } from './lib/common.mjs'
import { createTrowelApp, registerUser, webLogin } from './lib/trowel-app.mjs'

requireBuild()
const opts = settings({ rounds: 6 })
const requestsArg = process.argv.indexOf('--requests')
const requests = requestsArg === -1 ? 40_000 : Number(process.argv[requestsArg + 1])
console.log(`Trowel's request handler vs the raw limit, in one process — ${new Date().toISOString()}`)
console.log(machine())
console.log(`${opts.rounds} rounds of ${requests} requests each, one after another, pinned to core ${SERVER_CORE}\n`)

const app = createTrowelApp()
const cookieFile = join(tmpdir(), `trowel-bench-handler-${process.pid}.cookie`)
try {
  const setup = await app.serve({ name: 'setup' })
  await registerUser(setup.url)
  // A fresh login just before the run: neither side rewrites the session or touches the login
  // (both do that at most once a minute).
  writeFileSync(cookieFile, await webLogin(setup.url))
  await setup.stop()
  const run = spawnSync('taskset', ['-c', SERVER_CORE, process.execPath, join(ROOT, 'bench/lib/in-process-runner.mjs'), cookieFile, String(opts.rounds), String(requests)], {
    cwd: app.dir,
    encoding: 'utf8',
    timeout: 600_000,
  })
  if (run.status !== 0) throw new Error(`the in-process run failed:\n${run.stderr}${run.stdout}`)
  const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l))
  console.log(`Both answer, byte for byte: ${lines[0].body}\n`)
  const rounds = lines.slice(1)
  for (const [i, r] of rounds.entries()) console.log(`  round ${i + 1}/${rounds.length}: Trowel ${r.trowel.toFixed(1)} µs, limit ${r.limit.toFixed(1)} µs, ratio ${fmtRatio(r.limit / r.trowel)}`)
  const t = median(rounds.map((r) => r.trowel))
  const l = median(rounds.map((r) => r.limit))
  console.log('\n' + table(
    ['GET /bench/home, no socket', 'µs per request (median)', 'rounds µs', 'limit ÷ Trowel (median of rounds)'],
    [
      ['raw limit', l.toFixed(1), rounds.map((r) => r.limit.toFixed(1)).join(' / '), '1.00'],
      ['Trowel', t.toFixed(1), rounds.map((r) => r.trowel.toFixed(1)).join(' / '), fmtRatio(median(rounds.map((r) => r.limit / r.trowel)))],
    ],
  ))
  console.log(`\nTrowel's own work per request: ${(t - l).toFixed(1)} µs. Load average at the end ${loadAverage().toFixed(2)}.`)
} finally {
  rmSync(cookieFile, { force: true })
  app.cleanup()
}
