import pg from 'pg'
import { freePort, startServer, load } from './lib/common.mjs'
import { createTrowelApp, registerUser, apiToken } from './lib/trowel-app.mjs'
const base = 'postgres://postgres@127.0.0.1:5432/test'
const dbName = `trowel_pgsemi_${process.pid}`
const admin = new pg.Client({ connectionString: base }); await admin.connect(); await admin.query(`CREATE DATABASE ${dbName}`)
const url = new URL(base); url.pathname = `/${dbName}`
const app = createTrowelApp({ env: { DATABASE_URL: url.toString() } })
const servers = []
try {
  const start = async (extra) => { const port = await freePort(); const s = await startServer({ name: 'T', args: ['craft', 'serve', '--port', String(port)], cwd: app.dir, env: { DATABASE_URL: url.toString(), ...extra }, readyUrl: `http://127.0.0.1:${port}/bench/json` }); s.url = `http://127.0.0.1:${port}`; servers.push(s); return s }
  const variants = [['new (cap 4MB)', { NODE_OPTIONS: '--require /tmp/nsdump.cjs' }], ['old (1MB)', { NODE_OPTIONS: '--max-semi-space-size=1 --require /tmp/nsdump.cjs' }]]
  const ss = []
  for (const [n, env] of variants) ss.push([n, await start(env)])
  await registerUser(ss[0][1].url); const token = await apiToken(ss[0][1].url)
  const headers = { authorization: `Bearer ${token}` }
  for (const [, s] of ss) await load({ url: `${s.url}/api/me`, headers, duration: 3, connections: 50, pid: s.pid })
  const { readFileSync } = await import('node:fs')
  const rss = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024)
  for (let i = 0; i < 2; i++) for (const [n, s] of ss) {
    const r = await load({ url: `${s.url}/api/me`, headers, duration: 5, connections: 50, pid: s.pid })
    await new Promise((res) => setTimeout(res, 1000))
    console.log(n, 'rps', Math.round(r.rps), 'perCpu', Math.round(r.perCpu), 'rss 1s after', rss(s.pid))
  }
  const cookie = null
} finally { for (const s of servers) await s.stop(); app.cleanup(); await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`); await admin.end() }
