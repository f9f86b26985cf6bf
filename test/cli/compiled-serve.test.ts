/**
 * Black-box: `craft serve` runs the app from a compiled JavaScript copy in storage/.trowel/js
 * (no TypeScript loader in the server), rebuilt when a source changes and reused when none does;
 * other commands that load the app's files (`craft migrate`) use the same copies;
 * stack traces still name the .ts file; TROWEL_NO_COMPILE=1 and a file esbuild cannot compile
 * fall back to tsx; an app copied to another folder reuses the copy, and import.meta names the
 * files where they are now; storage reached through a symbolic link falls back to tsx.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, readdirSync, existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { newApp, serve, type TestApp } from '../helpers/app-harness.js'

let app: TestApp
/** The copy `craft migrate` made of the new app's sources. */
let initial: string[]
interface Echo {
  word: string
  query: string | null
  /** import.meta.url: the source file, however the app is loaded. */
  where: string
  /** Where Node loaded the module from. */
  from: string
}
async function echo(base: string, query = ''): Promise<Echo> {
  return (await (await fetch(`${base}/echo${query}`)).json()) as Echo
}
const copies = () => (existsSync(join(app.dir, 'storage/.trowel/js')) ? readdirSync(join(app.dir, 'storage/.trowel/js')).sort() : [])

const CONTROLLER = (word: string) => `import type { HttpContext } from 'trowel'
import { shout } from '../support/shout.js'

export class EchoController {
  show({ request }: HttpContext) {
    return { word: shout('${word}'), query: request.input('q', null), where: import.meta.url, from: import.meta.resolve('./EchoController.js') }
  }

  fail(): never {
    throw new Error('deliberate failure')
  }
}
`

before(async () => {
  app = await newApp({ env: { APP_DEBUG: 'true' } })
  assert.equal(app.craft('migrate').code, 0)
  initial = copies()
  assert.equal(initial.length, 1, 'craft migrate loaded the migrations from a compiled copy')
  mkdirSync(join(app.dir, 'app/support'), { recursive: true })
  app.write('app/support/shout.ts', 'export const shout = (s: string): string => s.toUpperCase() + "!"\n')
  app.write('app/controllers/EchoController.ts', CONTROLLER('one'))
  app.edit('routes/web.ts', (t) =>
    t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/echo', 'EchoController@show').withoutMiddleware('web'),\n  Route.get('/fail', 'EchoController@fail').withoutMiddleware('web'),"),
  )
})

after(() => app.cleanup())

test('serve runs the compiled copy; a changed source is rebuilt, unchanged sources reuse it', async () => {
  let server = await app.serve()
  const one = await echo(server.url, '?q=x')
  assert.deepEqual([one.word, one.query], ['ONE!', 'x'])
  const first = copies().filter((name) => !initial.includes(name))
  assert.equal(first.length, 1, `one compiled copy: ${first.join(', ')}`)
  const dir = join(app.dir, 'storage/.trowel/js', first[0]!)
  assert.ok(existsSync(join(dir, 'app/controllers/EchoController.js')))
  assert.ok(existsSync(join(dir, 'routes/web.js')))
  assert.ok(existsSync(join(dir, '.complete')))
  assert.equal(existsSync(join(dir, 'tests')), false, 'the app tests are not compiled')
  // The controller that answered is the compiled one; its import.meta.url still names the source.
  assert.match(one.from, /\/storage\/\.trowel\/js\/[0-9a-f]{16}\/app\/controllers\/EchoController\.js$/)
  assert.equal(one.where, pathToFileURL(join(app.dir, 'app/controllers/EchoController.ts')).href)
  await server.stop()

  server = await app.serve()
  assert.deepEqual(copies(), [...initial, ...first].sort(), 'the same sources reuse the copy')
  await server.stop()

  app.write('app/controllers/EchoController.ts', CONTROLLER('two'))
  server = await app.serve()
  assert.equal((await echo(server.url)).word, 'TWO!', 'the new source is served')
  assert.equal(copies().length, initial.length + 2)
  await server.stop()
})

test('stack traces name the .ts source line', async () => {
  const server = await app.serve()
  const r = await fetch(`${server.url}/fail`, { headers: { accept: 'application/json' } })
  assert.equal(r.status, 500)
  const body = (await r.json()) as { stack?: string }
  assert.match(body.stack ?? '', /app\/controllers\/EchoController\.ts:10:\d+/, body.stack)
  await server.stop()
})

test('TROWEL_NO_COMPILE=1 serves the .ts files through tsx, building nothing', async () => {
  const before = copies()
  app.write('app/support/shout.ts', 'export const shout = (s: string): string => s.toUpperCase() + "?"\n')
  const server = await app.serve({ TROWEL_NO_COMPILE: '1' })
  const r = await echo(server.url)
  assert.equal(r.word, 'TWO?')
  assert.match(r.where, /\/app\/controllers\/EchoController\.ts$/, 'the .ts file itself')
  assert.deepEqual(copies(), before)
  await server.stop()
})

test('two servers started together on new sources share one copy', async () => {
  app.write('app/support/shout.ts', 'export const shout = (s: string): string => s + "."\n')
  const before = copies().length
  const [a, b] = await Promise.all([app.serve(), app.serve()])
  for (const s of [a, b]) assert.equal((await echo(s.url)).word, 'two.')
  assert.equal(copies().length, before + 1)
  assert.equal(copies().filter((name) => name.includes('.tmp-')).length, 0, 'no temporary folder is left')
  await Promise.all([a.stop(), b.stop()])
})

test('a copy of the app in another folder reuses its compiled copy: import.meta names the files where they are now', async () => {
  const elsewhere = join(dirname(app.dir), 'elsewhere')
  cpSync(app.dir, elsewhere, { recursive: true, verbatimSymlinks: true })
  const server = await serve(elsewhere, app.env)
  try {
    const r = await echo(server.url)
    assert.equal(r.where, pathToFileURL(join(elsewhere, 'app/controllers/EchoController.ts')).href)
    assert.ok(r.from.startsWith(pathToFileURL(join(elsewhere, 'storage/.trowel/js')).href), r.from)
    assert.deepEqual(readdirSync(join(elsewhere, 'storage/.trowel/js')).sort(), copies(), 'nothing was compiled again')
  } finally {
    await server.stop()
  }
})

test('storage reached through a symbolic link: no copy is made, the .ts files are loaded through tsx', async () => {
  const linked = join(dirname(app.dir), 'linked')
  cpSync(app.dir, linked, { recursive: true, verbatimSymlinks: true })
  const volume = join(dirname(app.dir), 'volume')
  renameSync(join(linked, 'storage'), volume)
  symlinkSync(volume, join(linked, 'storage'))
  // New sources, so that a copy would have to be made.
  writeFileSync(join(linked, 'app/support/shout.ts'), 'export const shout = (s: string): string => s + "~"\n')
  const server = await serve(linked, app.env)
  try {
    const r = await echo(server.url)
    assert.equal(r.word, 'two~')
    assert.equal(r.where, pathToFileURL(join(linked, 'app/controllers/EchoController.ts')).href)
    assert.doesNotMatch(r.from, /\.trowel/, r.from)
    assert.deepEqual(readdirSync(join(volume, '.trowel/js')).sort(), copies(), 'nothing was compiled')
  } finally {
    await server.stop()
  }
})
