#!/usr/bin/env node
// Installs Trowel the way a user of the published package would, and proves it works: `npm pack`
// (which builds first), the tarball installed into an empty project, then `npx craft new app`,
// `node craft auth`, `node craft migrate`, `node craft serve` and one HTTP request to /login.
// Run by CI; `npm run package:check` locally (about two minutes: better-sqlite3 compiles).
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const work = mkdtempSync(join(tmpdir(), 'trowel-package-'))
const keep = process.argv.includes('--keep')

function run(command, args, cwd) {
  const started = Date.now()
  console.log(`\n$ ${command} ${args.join(' ')}    (in ${cwd})`)
  const r = spawnSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } })
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${r.status ?? r.signal}`)
  console.log(`  (${((Date.now() - started) / 1000).toFixed(1)} s)`)
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function serveAndGet(appDir, path) {
  const port = await freePort()
  const child = spawn(process.execPath, ['craft', 'serve', '--port', String(port)], { cwd: appDir, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  try {
    const deadline = Date.now() + 60_000
    while (!output.includes('serving on')) {
      if (child.exitCode !== null) throw new Error(`craft serve exited with ${child.exitCode}:\n${output}`)
      if (Date.now() > deadline) throw new Error(`craft serve did not start within 60 s:\n${output}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    const response = await fetch(`http://127.0.0.1:${port}${path}`)
    const body = await response.text()
    console.log(`GET ${path} → ${response.status}`)
    if (response.status !== 200 || !body.includes('name="password"')) throw new Error(`GET ${path} answered ${response.status}:\n${body.slice(0, 500)}`)
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
  }
}

try {
  const packs = join(work, 'packs')
  mkdirSync(packs)
  run('npm', ['pack', '--pack-destination', packs], root)
  const tarball = join(packs, readdirSync(packs).find((f) => f.endsWith('.tgz')))
  const project = join(work, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-project', private: true, type: 'module' }, null, 2))
  run('npm', ['install', tarball], project)
  run('npx', ['craft', 'new', 'app'], project)
  const app = join(project, 'app')
  run(process.execPath, ['craft', 'auth'], app)
  run(process.execPath, ['craft', 'migrate'], app)
  await serveAndGet(app, '/login')
  console.log('\nThe packed tarball installs and serves a new app.')
} catch (error) {
  console.error(`\npackage check failed: ${error.message}`)
  process.exitCode = 1
} finally {
  if (keep) console.log(`kept ${work}`)
  else rmSync(work, { recursive: true, force: true })
}
