/**
 * Black-box: one-command wiring. `craft new <dir> --auth --api` makes a migrated app with the auth
 * pages and the JWT API; `craft api:install --wire` makes every step of turning the API on, once
 * (a second run changes nothing), and refuses, naming the file, when one has another shape.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CRAFT_BIN, newApp, migrate, runNode, serve } from '../helpers/app-harness.js'
import { createTestDatabase } from '../helpers/databases.js'
import { Client } from '../helpers/http-client.js'

const PASSWORD = 'correct horse battery staple'

async function registerAndCallApi(url: string): Promise<void> {
  const web = new Client(url)
  const registered = await web.submit('/register', '/register', { name: 'Wired', email: 'wired@example.test', password: PASSWORD, password_confirmation: PASSWORD })
  assert.equal(registered.location, '/home')
  const issued = await new Client(url).postJson('/api/auth', { username: 'wired@example.test', password: PASSWORD })
  assert.equal(issued.status, 200, issued.text)
  const token = issued.json().data as string
  const me = await fetch(`${url}/api/me`, { headers: { authorization: `Bearer ${token}` } })
  assert.equal(me.status, 200)
  assert.equal(((await me.json()) as { data: { email: string } }).data.email, 'wired@example.test')
  assert.equal((await fetch(`${url}/api/me`)).status, 401)
}

describe('one-command wiring', () => {
  const cleanups: (() => Promise<void>)[] = []
  after(async () => {
    for (const c of cleanups) await c()
  })

  it('craft new <dir> --auth --api: a migrated app where /register and /api/auth work at once', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'trowel-wired-'))
    const database = await createTestDatabase()
    cleanups.push(async () => {
      await database.drop()
      rmSync(parent, { recursive: true, force: true })
    })
    const dir = join(parent, 'app')
    const created = runNode([CRAFT_BIN, 'new', dir, '--auth', '--api'], { cwd: parent, env: database.env, timeout: 120_000 })
    assert.equal(created.code, 0, created.stderr + created.stdout)
    assert.match(created.stdout, /with the auth and account pages and the JWT API, migrated/)
    const routes = readFileSync(join(dir, 'routes/web.ts'), 'utf8')
    assert.match(routes, /\.\.\.authRoutes\(\)/)
    assert.match(routes, /\.\.\.Api\.routes\(\)/)
    // JWTs a password change or "This wasn't me" can end: token epochs, their migration run.
    assert.match(readFileSync(join(dir, 'config/api.ts'), 'utf8'), /model: User, expires: null, authenticates: false, version: null, revocation: 'epoch' \}/)
    assert.ok(readdirSync(join(dir, 'databases/migrations')).some((f) => f.endsWith('_add_token_epoch_to_users.ts')), 'no token epoch migration')
    const server = await serve(dir, database.env)
    try {
      await registerAndCallApi(server.url)
    } finally {
      await server.stop()
    }
  })

  it('craft api:install --wire: every step once, a second run changes nothing and says so, then the API works', async () => {
    const app = await newApp()
    cleanups.push(() => app.cleanup())
    assert.equal(app.craft('auth').code, 0)
    const first = app.craft('api:install', '--wire')
    assert.equal(first.code, 0, first.stderr + first.stdout)
    for (const file of ['config/providers.ts', 'routes/api.ts', 'Kernel.ts', 'app/models/User.ts', 'routes/web.ts']) {
      assert.match(first.stdout, new RegExp(`Updated ${file.replace('.', '\\.')}`), `${file} in:\n${first.stdout}`)
    }
    assert.match(first.stdout, /Updated databases\/migrations\/\d{4}_\d\d_\d\d_\d{6}_add_api_token_users\.ts/)
    const files = ['config/providers.ts', 'routes/api.ts', 'Kernel.ts', 'app/models/User.ts', 'routes/web.ts', '.env', 'config/api.ts']
    const snapshot = files.map((f) => app.read(f))
    const second = app.craft('api:install', '--wire')
    assert.equal(second.code, 0, second.stderr)
    assert.doesNotMatch(second.stdout, /Updated|Created/)
    assert.match(first.stdout, /Then run: node craft migrate/)
    assert.doesNotMatch(second.stdout, /node craft migrate/, 'nothing to migrate after a run that changed nothing')
    assert.match(second.stdout, /Nothing changed: the API is already installed and wired\./)
    assert.deepEqual(files.map((f) => app.read(f)), snapshot, 'a second run changes no file')
    migrate(app)
    const server = await app.serve()
    await registerAndCallApi(server.url)
  })

  it('refuses, naming the file, when Kernel.ts no longer has the expected shape (exit 1, the rest still done)', async () => {
    const app = await newApp()
    cleanups.push(() => app.cleanup())
    app.edit('Kernel.ts', (t) => t.replace("this.application.bind('routes.location', 'routes/web')", "this.application.bind('routes.location', ROUTES_FOLDER)"))
    const r = app.craft('api:install', '--wire')
    assert.equal(r.code, 1)
    assert.match(r.stdout, /Not changed: Kernel\.ts \(it has no "this\.application\.bind\('routes\.location', 'routes\/web'\)" line\)/)
    assert.match(r.stdout, /Updated config\/providers\.ts/)
  })
})
