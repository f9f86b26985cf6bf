#!/usr/bin/env node
// `npm start`: the demo app. On first run it creates `demo/` with `craft new`, installs web auth
// and the JWT API by the seed's steps (token families, tokens lasting one minute), adds a home page
// panel that fetches a token and calls a protected API route, and the single-page example at /spa
// (scripts/demo-spa/, bundled with trowel/client at every start); then it migrates and serves on
// http://localhost:8000, listening on 127.0.0.1 (HOST and PORT override, as do
// `npm start -- --host H --port P`).
import { existsSync } from 'node:fs'
import { spawnSync, spawn } from 'node:child_process'
import { join } from 'node:path'
import { applyApiSteps, applyAuthSteps, applyDemoPage, DEMO_API_ROUTES, setDemoTokenLifetime } from './seed-steps.mjs'
import { applyDemoSpa, buildDemoSpa, hasDemoSpa } from './demo-spa.mjs'

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
  // Token families (a reuse window for tabs refreshing at once), and tokens short enough that the
  // single-page example shows its refresh within a minute.
  craft(['api:install', '--store', 'table'])
  applyApiSteps(demo, craft, { apiRoutes: DEMO_API_ROUTES })
  setDemoTokenLifetime(demo)
  applyDemoPage(demo)
}
// The single-page example: added to a demo made before it existed, bundled again at every start.
if (hasDemoSpa(demo)) buildDemoSpa(demo)
else applyDemoSpa(demo)

run(['craft', 'migrate'], demo, true)
/** `--name value` or `--name=value` from the command line (`npm start -- --port 8001`). */
function option(name) {
  const args = process.argv.slice(2)
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) return args[i + 1]
    if (args[i].startsWith(`--${name}=`)) return args[i].slice(name.length + 3)
  }
  return undefined
}
const unknown = process.argv.slice(2).filter((a) => a.startsWith('--') && !/^--(host|port)(=|$)/.test(a))
if (unknown.length) {
  console.error(`npm start takes --host and --port only, not ${unknown.join(' ')}.`)
  process.exit(1)
}
const host = option('host') ?? process.env.HOST ?? '127.0.0.1'
const port = option('port') ?? process.env.PORT ?? '8000'
// Links in e-mails (password reset) point at APP_URL: follow the host and port unless APP_URL is
// set. Its host is localhost unless another host is named: passkeys (WebAuthn) refuse an IP address.
const env = { ...process.env }
const hostGiven = host !== '127.0.0.1'
const urlHost = hostGiven ? (host.includes(':') ? `[${host}]` : host) : 'localhost'
if ((hostGiven || port !== '8000') && !process.env.APP_URL) env.APP_URL = `http://${urlHost}:${port}`
const server = spawn(process.execPath, ['craft', 'serve', '--host', host, '--port', port], { cwd: demo, stdio: 'inherit', env })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal))
server.on('exit', (code) => process.exit(code ?? 0))
