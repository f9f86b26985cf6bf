/**
 * Black-box: `craft auth` adds the auth pages to routes/web.ts itself, once; the hand-written
 * steps (`import { Auth }` and `...Auth.routes()`) on top of it still give one working set of
 * routes; a routes file of another shape is left alone with the manual steps printed.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { newApp, migrate, type TestApp } from '../helpers/app-harness.js'

describe('craft auth wires routes/web.ts', () => {
  let app: TestApp
  before(async () => {
    app = await newApp()
  })
  after(() => app.cleanup())

  it('adds ...authRoutes() once; the manual steps added as well still serve every page once', async () => {
    const r = app.craft('auth')
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /Updated.*routes\/web\.ts/)
    const wired = app.read('routes/web.ts')
    assert.equal(wired.match(/\.\.\.authRoutes\(\)/g)?.length, 1)
    assert.match(wired, /^import \{ authRoutes \} from 'trowel\/auth'$/m)
    const again = app.craft('auth', '--force')
    assert.equal(again.code, 0, again.stderr)
    assert.equal(app.read('routes/web.ts'), wired, 'a second run changes nothing')
    // A reader following the manual steps adds them too.
    app.edit('routes/web.ts', (t) => `import { Auth } from 'trowel/auth'\n` + t.replace('export const ROUTES = [', 'export const ROUTES = [\n  ...Auth.routes(),'))
    migrate(app)
    const server = await app.serve()
    try {
      assert.equal((await fetch(`${server.url}/login`)).status, 200)
      assert.equal((await fetch(`${server.url}/register`)).status, 200)
      const list = app.craft('routes:list')
      assert.equal(list.code, 0, list.stderr)
      assert.equal(list.stdout.split('\n').filter((line) => /\bGET\b.*\/login\b/.test(line) && !/login\//.test(line)).length, 1, list.stdout)
    } finally {
      await server.stop()
    }
  })

  it('leaves a routes file without "export const ROUTES = [" alone and prints the manual steps', async () => {
    const other = await newApp()
    try {
      other.write('routes/web.ts', "import { Route } from 'trowel'\nconst routes = [Route.get('/', 'WelcomeController@show')]\nexport { routes as ROUTES }\n")
      const before = other.read('routes/web.ts')
      const r = other.craft('auth')
      assert.equal(r.code, 0, r.stderr)
      assert.match(r.stdout, /Add the routes by hand/)
      assert.equal(other.read('routes/web.ts'), before)
    } finally {
      await other.cleanup()
    }
  })
})

describe('craft auth --missing: an app made before some of the auth pages existed', () => {
  let app: TestApp
  before(async () => {
    app = await newApp()
  })
  after(() => app.cleanup())

  it('the app names the command at startup; --missing adds only the absent files, changing none the app has', async () => {
    assert.equal(app.craft('auth').code, 0)
    // An older app: no two-factor pages, no migration for them, and a login controller of its own.
    const migrations = readdirSync(join(app.dir, 'databases', 'migrations'))
    const twoFactorMigration = migrations.find((name) => name.endsWith('_create_two_factor_tables.ts'))
    assert.ok(twoFactorMigration, migrations.join(', '))
    for (const file of ['app/controllers/auth/TwoFactorController.ts', 'templates/auth/two_factor.html', `databases/migrations/${twoFactorMigration}`]) {
      rmSync(join(app.dir, file))
    }
    app.edit('app/controllers/auth/LoginController.ts', (t) => `${t}\n// the app's own\n`)
    migrate(app)
    await assert.rejects(app.serve(), /TwoFactorController[\s\S]*node craft auth --missing/)

    const plain = app.craft('auth')
    assert.notEqual(plain.code, 0, 'without a flag nothing is overwritten')
    assert.match(plain.stderr + plain.stdout, /already exist/)
    const added = app.craft('auth', '--missing')
    assert.equal(added.code, 0, added.stderr)
    const created = added.stdout.split('\n').filter((line) => /Created/.test(line))
    assert.equal(created.length, 3, added.stdout)
    assert.match(added.stdout, /Created app\/controllers\/auth\/TwoFactorController\.ts/)
    assert.match(added.stdout, /Created templates\/auth\/two_factor\.html/)
    assert.match(added.stdout, /Created databases\/migrations\/[\d_]+_create_two_factor_tables\.ts/)
    assert.match(app.read('app/controllers/auth/LoginController.ts'), /\/\/ the app's own/)
    assert.match(app.craft('auth', '--missing').stdout, /Nothing to add/)
    assert.notEqual(app.craft('auth', '--missing', '--force').code, 0)

    migrate(app)
    const server = await app.serve()
    try {
      assert.equal((await fetch(`${server.url}/login`)).status, 200)
    } finally {
      await server.stop()
    }
  })
})
