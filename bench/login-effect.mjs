#!/usr/bin/env node
// Logins beside API traffic: Trowel's JWT route (`GET /api/me`) alone, then while 8 connections
// POST /api/auth (argon2id) beside it, the server pinned to one core and the load on the other
// (as bench:peers). Hashing runs on niced threads (src/auth/hashing/hash-pool.ts), so the route
// should keep most of its rate and its p99.
//
//   npm run bench:logins [-- --rounds 3 --duration 10 --warmup 3 --connections 50]
import { requireBuild, settings, load, machine, median, fmtInt, fmtMs, sleep } from './lib/common.mjs'
import { createTrowelApp, registerUser, apiToken, BENCH_USER } from './lib/trowel-app.mjs'

requireBuild()
const opts = settings({ rounds: 3, duration: 10, warmup: 3 })
console.log(`Trowel: JWT route alone and beside logins — ${new Date().toISOString()}`)
console.log(machine())
const app = createTrowelApp()
let server
try {
  server = await app.serve({ name: 'trowel' })
  await registerUser(server.url)
  const token = await apiToken(server.url)
  const me = { url: `${server.url}/api/me`, headers: { authorization: `Bearer ${token}` }, connections: opts.connections, pid: server.pid }
  const logins = { url: `${server.url}/api/auth`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: BENCH_USER.email, password: BENCH_USER.password }), connections: 8, timeout: 60 }
  await load({ ...me, duration: opts.warmup })
  await load({ ...logins, duration: Math.min(opts.warmup, 3) })
  const alone = []
  const beside = []
  const rate = []
  for (let round = 1; round <= opts.rounds; round++) {
    alone.push(await load({ ...me, duration: opts.duration }))
    await sleep(500)
    const [during, auth] = await Promise.all([load({ ...me, duration: opts.duration }), load({ ...logins, duration: opts.duration })])
    beside.push(during)
    rate.push(auth.rps)
    console.log(`round ${round}: alone ${fmtInt(alone.at(-1).rps)} req/s p99 ${fmtMs(alone.at(-1).p99)} ms; beside ${fmtInt(auth.rps)} logins/s: ${fmtInt(during.rps)} req/s p99 ${fmtMs(during.p99)} ms`)
  }
  const m = (runs, key) => median(runs.map((r) => r[key]))
  console.log(`\nmedian: alone ${fmtInt(m(alone, 'rps'))} req/s, p99 ${fmtMs(m(alone, 'p99'))} ms; beside ${fmtInt(median(rate))} logins/s: ${fmtInt(m(beside, 'rps'))} req/s (${Math.round((100 * m(beside, 'rps')) / m(alone, 'rps'))} %), p99 ${fmtMs(m(beside, 'p99'))} ms`)
} finally {
  await server?.stop?.()
  app.cleanup?.()
}
