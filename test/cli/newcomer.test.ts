/**
 * Black-box: a newcomer's first hour. A new app is in debug mode (APP_ENV=local, APP_DEBUG=true);
 * `craft serve` warns when that is served to other machines or in production, and when APP_URL
 * (the base of links in e-mails) points to another local port than the one served, while the
 * generated APP_URL follows --port; an unknown command or a mistyped controller or method says
 * "Did you mean ...?"; `craft typecheck` runs tsc on the app.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { newApp, type TestApp } from '../helpers/app-harness.js'

let app: TestApp

before(async () => {
  app = await newApp()
  assert.equal(app.craft('migrate').code, 0)
  // A route that shows the APP_URL the app is running with (the base of links in e-mails).
  app.edit('routes/web.ts', (t) =>
    t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/app-url', ({ app }) => String(app.config('application')?.APPLICATION?.url)),"),
  )
})

after(() => app.cleanup())

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/** Runs `craft serve <args>` until it says it is serving (or exits), then stops it; returns its output. */
function startOutput(args: string[], env: Record<string, string> = {}): Promise<{ output: string; served: boolean }> {
  return new Promise((resolve, reject) => {
    const clean: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) {
      if (v === undefined || k.startsWith('NODE_TEST') || k === 'NODE_OPTIONS' || /^(APP_|DB_|DATABASE_URL$)/.test(k)) continue
      clean[k] = v
    }
    const child = spawn(process.execPath, ['craft', 'serve', ...args], { cwd: app.dir, env: { ...clean, ...app.env, ...env } })
    let output = ''
    let served = false
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no start in 30 s:\n${output}`))
    }, 30_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (!served && /serving on http:\/\/\S+/.test(output)) {
        served = true
        child.kill('SIGTERM')
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve({ output, served })
    })
  })
}

test('a new app starts in debug mode, with a typecheck script', () => {
  const env = app.read('.env')
  assert.match(env, /^APP_ENV=local$/m)
  assert.match(env, /^APP_DEBUG=true$/m)
  // localhost, not 127.0.0.1: WebAuthn (passkeys, on by default) refuses an IP address.
  assert.match(env, /^APP_URL=http:\/\/localhost:8000$/m)
  const pkg = JSON.parse(app.read('package.json')) as { scripts: Record<string, string> }
  assert.equal(pkg.scripts.typecheck, 'node craft typecheck')
})

test('serve on 127.0.0.1 in debug: no warning', async () => {
  const server = await app.serve()
  try {
    assert.doesNotMatch(server.output(), /WARNING/)
  } finally {
    await server.stop()
  }
})

test('serve warns about APP_DEBUG=true on a non-loopback host and with APP_ENV=production', async () => {
  const open = await startOutput(['--host', '0.0.0.0', '--port', '0'])
  assert.match(open.output, /WARNING APP_DEBUG=true while serving on 0\.0\.0\.0/, open.output)
  const production = await startOutput(['--port', '0'], { APP_ENV: 'production' })
  assert.match(production.output, /WARNING APP_DEBUG=true with APP_ENV=production/, production.output)
  const quiet = await startOutput(['--host', '0.0.0.0', '--port', '0'], { APP_DEBUG: 'false' })
  assert.ok(quiet.served, quiet.output)
  assert.doesNotMatch(quiet.output, /WARNING/)
})

test('the generated APP_URL follows --port, with an info line', async () => {
  const port = await freePort()
  const server = await app.serve({}, ['--port', String(port)])
  try {
    assert.equal(server.port, port)
    assert.match(server.output(), new RegExp(`APP_URL follows --port: links in e-mails use http://localhost:${port}`))
    assert.doesNotMatch(server.output(), /WARNING/)
    assert.equal(await (await fetch(`${server.url}/app-url`)).text(), `http://localhost:${port}`)
  } finally {
    await server.stop()
  }
})

test('a chosen local APP_URL on another port is kept, with a warning naming both ports and the fix', async () => {
  const port = await freePort()
  const original = app.read('.env')
  app.edit('.env', (t) => t.replace(/^APP_URL=.*$/m, 'APP_URL=http://localhost:9000'))
  try {
    const server = await app.serve({}, ['--port', String(port)])
    try {
      const out = server.output()
      assert.match(out, new RegExp(`WARNING APP_URL is http://localhost:9000 but the server listens on port ${port}`), out)
      assert.match(out, new RegExp(`Set APP_URL=http://localhost:${port} in \\.env, or serve with --port 9000`), out)
      assert.equal(await (await fetch(`${server.url}/app-url`)).text(), 'http://localhost:9000', 'not changed behind the user\'s back')
    } finally {
      await server.stop()
    }
    // The generated value given in the environment is a choice too: kept, with the warning.
    const given = await app.serve({ APP_URL: 'http://localhost:8000' }, ['--port', String(port)])
    try {
      assert.match(given.output(), new RegExp(`WARNING APP_URL is http://localhost:8000 but the server listens on port ${port}`))
    } finally {
      await given.stop()
    }
    // A public APP_URL (behind a proxy) is not compared.
    const proxied = await app.serve({ APP_URL: 'https://example.com' }, ['--port', String(port)])
    try {
      assert.doesNotMatch(proxied.output(), /WARNING|APP_URL follows/)
    } finally {
      await proxied.stop()
    }
  } finally {
    app.write('.env', original)
  }
})

test('passkeys on with an APP_URL whose host is an IP address: serve warns, naming passkeys and APP_URL', async () => {
  const port = await freePort()
  const features = /features: \[[^\]]*\]/.exec(app.read('config/auth.ts'))?.[0]
  assert.match(features ?? '', /'passkeys'/, 'a new app has passkeys on')
  const server = await app.serve({ APP_URL: `http://127.0.0.1:${port}` }, ['--port', String(port)])
  try {
    let out = server.output()
    for (let i = 0; i < 50 && !/Passkeys/.test(out); i++) {
      await new Promise((r) => setTimeout(r, 100))
      out = server.output()
    }
    assert.match(out, new RegExp(`WARNING Passkeys are on .* APP_URL is http://127\\.0\\.0\\.1:${port}, an IP address`), out)
    assert.match(out, new RegExp(`Set APP_URL=http://localhost:${port} in \\.env`), out)
  } finally {
    await server.stop()
  }
  // The same URL with passkeys off: nothing to warn about.
  const original = app.read('config/auth.ts')
  app.edit('config/auth.ts', (t) => t.replace(/features: \[[^\]]*\]/, "features: ['registration', 'reset_passwords']"))
  try {
    const off = await app.serve({ APP_URL: `http://127.0.0.1:${port}` }, ['--port', String(port)])
    try {
      await new Promise((r) => setTimeout(r, 500))
      assert.doesNotMatch(off.output(), /Passkeys/)
    } finally {
      await off.stop()
    }
  } finally {
    app.write('config/auth.ts', original)
  }
})

test('an unknown command suggests a command one or two edits away, else points to --help', () => {
  const unknown = app.craft('frobnicate')
  assert.notEqual(unknown.code, 0)
  assert.equal(unknown.stderr.trim().split('\n').length, 1, unknown.stderr)
  assert.match(unknown.stderr, /unknown command 'frobnicate'/)
  assert.match(unknown.stderr, /node craft --help/)
  assert.doesNotMatch(unknown.stderr, /Did you mean/)
  for (const [typo, meant] of [['serv', 'serve'], ['migrat', 'migrate'], ['rotes:list', 'routes:list'], ['tpyecheck', 'typecheck']]) {
    const r = app.craft(typo!)
    assert.notEqual(r.code, 0)
    assert.equal(r.stderr.trim(), `error: unknown command '${typo}' (Did you mean ${meant}?)`)
  }
})

test('a mistyped controller or method in a route: "Did you mean ...?"', () => {
  const original = app.read('routes/web.ts')
  try {
    app.write('routes/web.ts', "import { Route } from 'trowel'\nexport const ROUTES = [Route.get('/', 'WelcomeControler@show')]\n")
    let r = app.craft('routes:list')
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, /Controller "WelcomeControler" not found: there is no app\/controllers\/WelcomeControler\.ts\. Did you mean WelcomeController\?/)
    assert.doesNotMatch(r.stderr, /craft controller WelcomeControler/, 'never advised to create the typo')

    app.write('routes/web.ts', "import { Route } from 'trowel'\nexport const ROUTES = [Route.get('/', 'WelcomeController@shwo')]\n")
    r = app.craft('routes:list')
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, /controller WelcomeController has no method "shwo"\. Did you mean show\?/)

    // Nothing close: no suggestion, the advice to create it stays.
    app.write('routes/web.ts', "import { Route } from 'trowel'\nexport const ROUTES = [Route.get('/', 'BillingController@index')]\n")
    r = app.craft('routes:list')
    assert.match(r.stderr, /create it with "node craft controller BillingController"/)
    assert.doesNotMatch(r.stderr, /Did you mean/)
  } finally {
    app.write('routes/web.ts', original)
  }
})

test('craft typecheck: a new app is clean; a type error gives exit 1 with file:line', () => {
  const clean = app.craft('typecheck')
  assert.equal(clean.code, 0, clean.stdout + clean.stderr)
  assert.match(clean.stdout, /No type errors/)
  app.write('app/controllers/BrokenController.ts', `import type { HttpContext } from 'trowel'

export class BrokenController {
  show({ request }: HttpContext) {
    const count: number = request.input('n', 'zero') as string
    return { count }
  }
}
`)
  try {
    const broken = app.craft('typecheck')
    assert.equal(broken.code, 1, broken.stdout + broken.stderr)
    assert.match(broken.stdout, /app\/controllers\/BrokenController\.ts:5:\d+ - error TS2322/, broken.stdout)
    assert.match(broken.stdout, /Found 1 type error\./)
  } finally {
    app.write('app/controllers/BrokenController.ts', 'export class BrokenController {}\n')
  }
})
