#!/usr/bin/env node
// Memory under oversized bodies (a soak, not a timed test): how much higher the server's RSS is
// 1.5 s after 400 bodies of 900 KB (8 at a time) than after a warm-up of 40 small bodies to the
// same route, and its peak (VmHWM) during them. Three cases,
// each on a server of its own (a generated app with web auth and the JWT API):
//   - `POST /api/auth` with a 900 KB `username` (a credential route: 16 KiB body limit, 413);
//   - `POST /login` with a 900 KB `email` (a web credential route: 413);
//   - `POST /bench/size`, a JSON route with the app's 1 MiB limit that reads the 900 KB body and
//     answers its size: what any large body costs (read, parsed and dropped).
// Printed per case: the answers, RSS before and 1.5 s after, and the server's own view 1.5 s after
// (`process.memoryUsage()`: V8 heap used, external and array buffers), read through a route this
// script adds.
//
//   npm run bench:oversized [-- --rounds 2]
import http from 'node:http'
import { join } from 'node:path'
import { readFileSync, writeFileSync } from 'node:fs'

const { requireBuild, settings, machine, fmtMb, table, writeResultsSection, commandLine, sleep, loadAverage } = await import('./lib/common.mjs')
const { createTrowelApp } = await import('./lib/trowel-app.mjs')

const BODIES = 400
const WARMUP_BODIES = 40
const AT_ONCE = 8
const USERNAME_BYTES = 900 * 1024
const SETTLE_MS = 1500

// /bench/memory: process.memoryUsage() as it is, then after a full collection (gc() reached
// through V8's flag at run time, so the server runs with its usual flags until then).
const MEMORY_IMPORTS = `import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
`
const MEMORY_ROUTES = `  Route.get('/bench/memory', () => {
    const before = process.memoryUsage()
    setFlagsFromString('--expose-gc')
    runInNewContext('gc')()
    return { before, after: process.memoryUsage() }
  }).withoutMiddleware('web'),
  Route.post('/bench/size', ({ request }) => ({ size: JSON.stringify(request.body).length })).withoutMiddleware('web'),`

requireBuild()
const opts = settings({ rounds: 1 })
const started = new Date().toISOString()
const machineLine = machine()
console.log(`Trowel: memory under oversized bodies — ${started}`)
console.log(machineLine)

const app = createTrowelApp()
const web = join(app.dir, 'routes/web.ts')
writeFileSync(web, MEMORY_IMPORTS + readFileSync(web, 'utf8').replace('export const ROUTES = [', `export const ROUTES = [\n${MEMORY_ROUTES}`))

const huge = 'u'.repeat(USERNAME_BYTES) + '@example.test'
const small = 'nobody-at-all@example.test'
const json = (username) => JSON.stringify({ username, password: 'correct-horse-battery' })
const form = (email) => `email=${email}&password=correct-horse-battery`
const CASES = [
  { name: '`POST /api/auth`, 900 KB `username` (JSON)', path: '/api/auth', type: 'application/json', body: json(huge), small: json(small) },
  { name: '`POST /login`, 900 KB `email` (form)', path: '/login', type: 'application/x-www-form-urlencoded', body: form(huge), small: form(small) },
  { name: '`POST /bench/size`, 900 KB body (JSON, 1 MiB limit)', path: '/bench/size', type: 'application/json', body: json(huge), small: json(small) },
]

const rows = []
try {
  for (let round = 1; round <= opts.rounds; round++) {
    for (const c of CASES) {
      const server = await app.serve({ name: `trowel ${c.path}` })
      try {
        const port = Number(new URL(server.url).port)
        await flood(port, { ...c, body: c.small }, WARMUP_BODIES)
        await sleep(SETTLE_MS)
        const before = server.rssMb()
        const statuses = await flood(port, c, BODIES)
        const peak = server.peakRssMb()
        await sleep(SETTLE_MS)
        const after = server.rssMb()
        const { before: inside, after: collected } = await memory(port)
        const afterGc = server.rssMb()
        const row = { round, c, statuses, before, peak, after, inside, collected, afterGc }
        rows.push(row)
        console.log(
          `${c.name}: ${JSON.stringify(statuses)}; RSS ${fmtMb(before)} → ${fmtMb(after)} MB (${fmtMb(after - before)}), peak ${fmtMb(peak)} MB; ` +
            `heap used ${fmtMb(inside.heapUsed / 2 ** 20)} MB, external ${fmtMb(inside.external / 2 ** 20)} MB; after gc(): RSS ${fmtMb(afterGc)} MB, heap used ${fmtMb(collected.heapUsed / 2 ** 20)} MB, external ${fmtMb(collected.external / 2 ** 20)} MB`,
        )
      } finally {
        await server.stop()
      }
    }
  }
} finally {
  app.cleanup()
}

const markdown = `Run ${started} — \`${commandLine('bench:oversized')}\` — Node ${process.version}

Machine: ${machineLine}; load average at the end ${loadAverage().toFixed(2)}.
Each case on a fresh server (the benchmark app: web auth and the JWT API): ${WARMUP_BODIES} small bodies to the route (a 20-byte username), RSS ${SETTLE_MS / 1000} s later, then ${BODIES} bodies of 900 KB (${AT_ONCE} at a time, keep-alive), the peak RSS (VmHWM), and RSS again ${SETTLE_MS / 1000} s later; heap used and external are the server's \`process.memoryUsage()\` at that moment; then a full collection (\`gc()\`) in the server and RSS once more: what is left is what the allocator kept.

${table(
  ['round', 'case', 'answers', 'RSS after warm-up MB', 'peak MB', 'RSS 1.5 s after MB', 'growth MB', 'heap used MB', 'external MB', 'RSS after gc() MB', 'heap used after gc() MB'],
  rows.map((r) => [String(r.round), r.c.name, Object.entries(r.statuses).map(([s, n]) => `${n}× ${s}`).join(', '), fmtMb(r.before), fmtMb(r.peak), fmtMb(r.after), fmtMb(r.after - r.before), fmtMb(r.inside.heapUsed / 2 ** 20), fmtMb(r.inside.external / 2 ** 20), fmtMb(r.afterGc), fmtMb(r.collected.heapUsed / 2 ** 20)]),
)}`
writeResultsSection('oversized', markdown)
console.log('\n' + markdown)

/** Sends `count` copies of the case's body, `AT_ONCE` at a time on keep-alive sockets; returns status counts. */
async function flood(port, c, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: AT_ONCE })
  const statuses = {}
  let next = 0
  const one = () =>
    new Promise((resolve) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: c.path, method: 'POST', agent, headers: { 'content-type': c.type, accept: 'application/json', 'content-length': Buffer.byteLength(c.body) } },
        (res) => {
          res.resume()
          res.on('end', () => resolve(String(res.statusCode)))
        },
      )
      req.on('error', (error) => resolve(error.code ?? 'error'))
      req.end(c.body)
    })
  const lanes = Array.from({ length: AT_ONCE }, async () => {
    while (next < count) {
      next++
      const status = await one()
      statuses[status] = (statuses[status] ?? 0) + 1
    }
  })
  await Promise.all(lanes)
  agent.destroy()
  return statuses
}

/** The server's `process.memoryUsage()`, before and after a full collection. */
async function memory(port) {
  const response = await fetch(`http://127.0.0.1:${port}/bench/memory`)
  return response.json()
}
