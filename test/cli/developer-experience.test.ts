/**
 * CLI polish, black-box: `serve --watch` restarts on a change, errors name the file and the fix,
 * piped output carries no colour codes.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import { newApp, runNode, CRAFT_BIN, ROOT, type TestApp } from '../helpers/app-harness.js'
import { applyApiSteps } from '../helpers/seed-steps.js'

let app: TestApp

before(async () => {
  app = await newApp()
  const r = app.craft('migrate')
  assert.equal(r.code, 0, r.stderr)
})

after(async () => {
  await app.cleanup()
})

async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

test('serve --watch restarts the server when a route file changes, and survives a syntax error', async () => {
  const server = await app.serve({}, ['--watch'])
  try {
    assert.equal((await fetch(`${server.url}/pong`)).status, 404)
    const servings = () => server.output().match(/serving on http:\/\/127\.0\.0\.1:\d+/g)?.length ?? 0
    const latestUrl = () => [...server.output().matchAll(/serving on (http:\/\/127\.0\.0\.1:\d+)/g)].at(-1)![1]!
    app.edit('routes/web.ts', (t) => t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/pong', () => 'pong'),"))
    await waitFor(() => servings() >= 2, 'the restarted server')
    const pong = await fetch(`${latestUrl()}/pong`)
    assert.equal(pong.status, 200)
    assert.equal(await pong.text(), 'pong')
    assert.match(server.output(), /routes\/web\.ts changed: restarting/)

    const good = app.read('routes/web.ts')
    app.write('routes/web.ts', good + '\nthis is not TypeScript(\n')
    await waitFor(() => /waiting for a file change/.test(server.output()), 'the failed restart')
    assert.match(server.output(), /error: Could not load routes\/web\.ts: routes\/web\.ts:\d+:\d+: /)
    app.write('routes/web.ts', good)
    await waitFor(() => servings() >= 3, 'the server after the fix')
    assert.equal((await fetch(`${latestUrl()}/pong`)).status, 200)
  } finally {
    assert.equal(await server.stop(), 0)
  }
})

test('serve --watch: an edit to .env takes effect at the restart it causes', async () => {
  app.edit('routes/web.ts', (t) => t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/greeting', () => process.env.GREETING ?? 'none'),"))
  // A key .env has when serve starts (as APP_DEBUG or APP_NAME in a new app).
  app.edit('.env', (t) => `${t}\nGREETING=zero\n`)
  const server = await app.serve({}, ['--watch'])
  try {
    const servings = () => server.output().match(/serving on http:\/\/127\.0\.0\.1:\d+/g)?.length ?? 0
    const latestUrl = () => [...server.output().matchAll(/serving on (http:\/\/127\.0\.0\.1:\d+)/g)].at(-1)![1]!
    assert.equal(await (await fetch(`${server.url}/greeting`)).text(), 'zero')
    app.edit('.env', (t) => t.replace('GREETING=zero', 'GREETING=first'))
    await waitFor(() => servings() >= 2, 'the restart after the first .env edit')
    assert.equal(await (await fetch(`${latestUrl()}/greeting`)).text(), 'first')
    app.edit('.env', (t) => t.replace('GREETING=first', 'GREETING=second'))
    await waitFor(() => servings() >= 3, 'the restart after the second .env edit')
    assert.equal(await (await fetch(`${latestUrl()}/greeting`)).text(), 'second', 'the new value, not the one the first restart saw')
  } finally {
    await server.stop()
    app.edit('.env', (t) => t.replace(/\nGREETING=second\n/, ''))
  }
})

test('changes under storage/ do not restart serve --watch', async () => {
  const server = await app.serve({}, ['--watch'])
  try {
    app.write('storage/notes.json', '{}')
    app.write('storage/logs/x.log', 'x')
    await new Promise((r) => setTimeout(r, 800))
    assert.doesNotMatch(server.output(), /restarting/)
  } finally {
    await server.stop()
  }
})

test('a port already in use is one line naming the port and the fix', async () => {
  const blocker = createServer()
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r))
  const port = (blocker.address() as AddressInfo).port
  try {
    const r = app.craft('serve', '--port', String(port))
    assert.notEqual(r.code, 0)
    assert.equal(r.stderr.trim(), `error: Port ${port} on 127.0.0.1 is already in use: stop the other server, or choose another port with --port.`)
  } finally {
    blocker.close()
  }
})

test('a syntax error in an app file names the file, line and problem on one line', () => {
  const original = app.read('routes/web.ts')
  app.write('routes/web.ts', original + '\nconst = 1\n')
  try {
    const r = app.craft('routes:list')
    assert.notEqual(r.code, 0)
    const lines = r.stderr.trim().split('\n')
    assert.equal(lines.length, 1, r.stderr)
    assert.match(lines[0]!, /^error: Could not load routes\/web\.ts: routes\/web\.ts:\d+:\d+: .+/)
  } finally {
    app.write('routes/web.ts', original)
  }
})

test('a missing controller names the file and the craft command that creates it', () => {
  const original = app.read('routes/web.ts')
  app.write('routes/web.ts', "import { Route } from 'trowel'\nexport const ROUTES = [Route.get('/', 'admin.ReportsController@index')]\n")
  try {
    const r = app.craft('routes:list')
    assert.notEqual(r.code, 0)
    assert.equal(r.stderr.trim(), 'error: Controller "admin.ReportsController" not found: expected app/controllers/admin/ReportsController.ts (create it with "node craft controller admin/ReportsController").')
  } finally {
    app.write('routes/web.ts', original)
  }
})

test('an unreachable database says what to check', () => {
  const r = runNode(['craft', 'migrate'], { cwd: app.dir, env: { ...app.env, DB_CONNECTION: 'postgres', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/db' } })
  assert.notEqual(r.code, 0)
  assert.match(r.stderr.trim(), /^error: Cannot connect to database "postgres" \(postgres at 127\.0\.0\.1:1\): .+ \(is the database server running\? Check DB_CONNECTION and DATABASE_URL in \.env or the environment\.\)$/)
})

test('a mistyped command suggests the right one, on one line', () => {
  const r = app.craft('migrat')
  assert.notEqual(r.code, 0)
  assert.equal(r.stderr.trim(), "error: unknown command 'migrat' (Did you mean migrate?)")
})

test('a missing JWT_SECRET stops serve with the fix: run node craft api:install', () => {
  applyApiSteps(app)
  app.edit('.env', (t) => t.replace(/^JWT_SECRET=.*$/m, ''))
  const r = app.craft('serve', '--port', '0')
  assert.notEqual(r.code, 0)
  assert.match(r.stderr, /^error: JWT_SECRET is not set\. Run `node craft api:install`/)
})

test('piped output has no colour codes, whatever the command', () => {
  for (const args of [['migrate:status'], ['routes:list'], ['controller', 'ColourCheck']]) {
    const r = app.craft(...args)
    assert.doesNotMatch(r.stdout + r.stderr, /\x1b\[/, args.join(' '))
  }
  const parent = runNode([CRAFT_BIN, '--help'])
  assert.doesNotMatch(parent.stdout, /\x1b\[/)
})

test('a new app with web auth and the JWT API installed type-checks (tsc --noEmit, strict)', async () => {
  const typed = await newApp()
  try {
    assert.equal(typed.craft('auth').code, 0)
    applyApiSteps(typed)
    assert.equal(typed.craft('controller', 'PostsController', '-a').code, 0)
    assert.equal(typed.craft('migration', 'create_posts_table', '--create', 'posts').code, 0)
    const tsc = runNode([join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], { cwd: typed.dir, timeout: 120_000 })
    assert.equal(tsc.code, 0, `${tsc.stdout}${tsc.stderr}`)
  } finally {
    await typed.cleanup()
  }
})

test('craft --version prints the framework version', () => {
  const pkg = JSON.parse(app.read('node_modules/trowel/package.json')) as { version: string }
  for (const flag of ['--version', '-V']) {
    const r = app.craft(flag)
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout.trim(), pkg.version)
  }
})

test('craft serve listens on PORT when --port is not given; --port wins over it', async () => {
  const freePort = () =>
    new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => resolve(port))
      })
    })
  async function servedPort(args: string[], env: Record<string, string>): Promise<number> {
    // An earlier test removed JWT_SECRET from .env (the API is installed): the environment supplies one.
    const secret = 'x'.repeat(64)
    const child = spawn(process.execPath, ['craft', 'serve', ...args], { cwd: app.dir, env: { ...process.env, ...app.env, JWT_SECRET: secret, ...env } })
    const exited = new Promise((r) => child.once('exit', r))
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d))
    child.stderr.on('data', (d: Buffer) => (output += d))
    try {
      await waitFor(() => /serving on http:\/\/127\.0\.0\.1:\d+/.test(output) || child.exitCode !== null, 'the server')
      assert.match(output, /serving on/, output)
      return Number(/serving on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)![1])
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  }
  const fromEnv = await freePort()
  assert.equal(await servedPort([], { PORT: String(fromEnv) }), fromEnv)
  const fromFlag = await freePort()
  assert.equal(await servedPort(['--port', String(fromFlag)], { PORT: String(fromEnv) }), fromFlag)
})
