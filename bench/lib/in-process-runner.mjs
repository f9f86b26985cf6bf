// Run by bench/session-handler.mjs in a generated app's folder (`node <this file> <cookie file>`):
// boots the app in this process (TestClient, the app's own database), then times Trowel's
// request handler and the raw limit's `home()` on the same logged-in request, alternating rounds,
// with stand-ins for node's request and response (no socket). Prints one JSON line per round.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestClient } from 'trowel/testing'
import { ROOT } from './common.mjs'
import { trowelSession } from '../servers/trowel-session.mjs'

const { RequestHandler } = await import(join(ROOT, 'dist/http/request-handler.js'))
const [cookieFile, roundsArg, countArg] = process.argv.slice(2)
const cookie = readFileSync(cookieFile, 'utf8').trim()
const rounds = Number(roundsArg)
const count = Number(countArg)
const root = process.cwd()

const client = await TestClient.create({ root, database: 'app', migrate: false, logLevel: 'error' })
const handler = new RequestHandler(client.app)
const env = Object.fromEntries(
  readFileSync(join(root, '.env'), 'utf8').split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
)
// The user as Trowel's model serializes it (the hidden columns left out, dates as ISO strings).
const toJson = (u) => ({
  id: u.id, name: u.name, email: u.email,
  created_at: new Date(u.created_at).toISOString(), updated_at: new Date(u.updated_at).toISOString(), email_verified_at: u.email_verified_at,
})
const home = trowelSession(env.APP_KEY, join(root, 'storage/database.sqlite'), toJson)

let answer = null
const response = () => ({
  headersSent: false,
  destroyed: false,
  writeHead(status, _text, headers) { answer = { status, headers } },
  end(body) { answer.body = String(body) },
})
const request = () => ({ method: 'GET', url: '/bench/home', headers: { host: '127.0.0.1', cookie }, socket: { remoteAddress: '127.0.0.1', encrypted: false }, complete: true })
const limit = (req, res) => {
  const r = home(req.headers.cookie)
  const body = JSON.stringify(r.body)
  res.writeHead(r.status, undefined, { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-length': String(Buffer.byteLength(body)) })
  res.end(body)
  return Promise.resolve()
}
const trowel = (req, res) => handler.handle(req, res)

const bodies = []
for (const run of [trowel, limit]) {
  await run(request(), response())
  bodies.push(`${answer.status} ${answer.body}`)
}
if (bodies[0] !== bodies[1] || !bodies[0].startsWith('200 ')) throw new Error(`the two answer differently:\n  Trowel: ${bodies[0]}\n  limit:  ${bodies[1]}`)
console.log(JSON.stringify({ body: bodies[0].slice(4) }))

/** Microseconds per request over `n` requests, one after another. */
async function time(run, n) {
  const started = process.hrtime.bigint()
  for (let i = 0; i < n; i++) await run(request(), response())
  return Number(process.hrtime.bigint() - started) / n / 1000
}
await time(trowel, count / 2)
await time(limit, count / 2)
for (let i = 0; i < rounds; i++) {
  const order = i % 2 === 0 ? [trowel, limit] : [limit, trowel]
  const a = await time(order[0], count)
  const b = await time(order[1], count)
  console.log(JSON.stringify(i % 2 === 0 ? { trowel: a, limit: b } : { trowel: b, limit: a }))
}
await client.close()
process.exit(0)
