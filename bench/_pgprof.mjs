import pg from 'pg'
import { join } from 'node:path'
import { freePort, startServer, load } from './lib/common.mjs'
import { createTrowelApp, registerUser, apiToken } from './lib/trowel-app.mjs'
const base = 'postgres://postgres@127.0.0.1:5432/test'
const dbName = `trowel_pgprof_${process.pid}`
const admin = new pg.Client({ connectionString: base }); await admin.connect(); await admin.query(`CREATE DATABASE ${dbName}`)
const url = new URL(base); url.pathname = `/${dbName}`
const app = createTrowelApp({ env: { DATABASE_URL: url.toString() } })
let server
try {
  const port = await freePort()
  server = await startServer({ name: 'T', args: ['--cpu-prof', `--cpu-prof-dir=/tmp/pgprof`, 'craft', 'serve', '--port', String(port)], cwd: app.dir, env: { DATABASE_URL: url.toString() }, readyUrl: `http://127.0.0.1:${port}/bench/json` })
  const u = `http://127.0.0.1:${port}`
  await registerUser(u); const token = await apiToken(u)
  const r = await load({ url: `${u}/api/me`, headers: { authorization: `Bearer ${token}` }, duration: 8, connections: 50, pid: server.pid })
  console.log('rps', r.rps, 'perCpu', r.perCpu, 'total', r.total)
} finally { await server?.stop(); app.cleanup(); await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`); await admin.end() }
