#!/usr/bin/env node
// `npm start`: the demo app. On first run it creates `demo/` with `craft new`, installs web auth
// and the JWT API by the seed's steps, adds a page that fetches a token and calls a protected API
// route; then it migrates and serves on http://localhost:8000, listening on 127.0.0.1 (HOST and
// PORT override).
import { existsSync } from 'node:fs'
import { spawnSync, spawn } from 'node:child_process'
import { join } from 'node:path'
import { applyApiSteps, applyAuthSteps, applyDemoPage, DEMO_API_ROUTES } from './seed-steps.mjs'

const root = new URL('..', import.meta.url).pathname
const demo = join(root, 'demo')

if (!existsSync(join(root, 'dist/cli/index.js'))) {
  console.error('dist/ is missing: run "npm install" (or "npm run build") first.')
  process.exit(1)
}

function run(args, cwd, show = false) {
  const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', show ? 'inherit' : 'pipe', 'inherit'], encoding: 'utf8' })
  if (r.status !== 0) {
    console.error(`failed: node ${args.join(' ')}`)
    process.exit(r.status ?? 1)
  }
  return r
}

if (!existsSync(join(demo, 'Kernel.ts'))) {
  console.log('Creating the demo app in demo/ ...')
  run([join(root, 'bin/craft.js'), 'new', demo], root)
  const craft = (args) => run(['craft', ...args], demo)
  applyAuthSteps(demo, craft)
  applyApiSteps(demo, craft, { apiRoutes: DEMO_API_ROUTES })
  applyDemoPage(demo)
}

run(['craft', 'migrate'], demo, true)
const host = process.env.HOST ?? '127.0.0.1'
const port = process.env.PORT ?? '8000'
// Links in e-mails (password reset) point at APP_URL: follow HOST/PORT unless APP_URL is set. Its
// host is localhost unless HOST names another: passkeys (WebAuthn) refuse an IP address.
const env = { ...process.env }
const urlHost = process.env.HOST ? (host.includes(':') ? `[${host}]` : host) : 'localhost'
if ((process.env.HOST || process.env.PORT) && !process.env.APP_URL) env.APP_URL = `http://${urlHost}:${port}`
const server = spawn(process.execPath, ['craft', 'serve', '--host', host, '--port', port], { cwd: demo, stdio: 'inherit', env })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal))
server.on('exit', (code) => process.exit(code ?? 0))
