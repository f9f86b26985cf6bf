// The demo's single-page example: copies scripts/demo-spa/ into the app (spa/index.html,
// spa/main.ts), adds a controller serving GET /spa and GET /spa/app.js outside the web stack (no
// session), and bundles spa/main.ts with trowel/client into storage/spa/app.js with esbuild (a
// dependency of Trowel already). `npm start` bundles again at every start, so edits to
// demo/spa/main.ts show after a restart.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildSync } from 'esbuild'

const here = new URL('./demo-spa/', import.meta.url).pathname

const CONTROLLER = `import { readFile } from 'node:fs/promises'
import type { HttpContext } from 'trowel'

/** The single-page example: its page (spa/index.html) and its bundle (storage/spa/app.js, built from spa/main.ts). */
export class SpaController {
  async page({ app, response }: HttpContext) {
    response.header('Cache-Control', 'no-cache')
    return readFile(app.path('spa', 'index.html'), 'utf8')
  }

  async script({ app, response }: HttpContext) {
    response.header('Content-Type', 'text/javascript; charset=utf-8')
    response.header('Cache-Control', 'no-cache')
    response.body = await readFile(app.path('storage', 'spa', 'app.js'), 'utf8')
    return response
  }
}
`

const ROUTES = `  Route.get('/spa', 'SpaController@page').name('spa').withoutMiddleware('web'),
  Route.get('/spa/app.js', 'SpaController@script').name('spa.script').withoutMiddleware('web'),`

/** Bundles the app's spa/main.ts (and trowel/client) into storage/spa/app.js. */
export function buildDemoSpa(dir) {
  mkdirSync(join(dir, 'storage', 'spa'), { recursive: true })
  buildSync({
    entryPoints: [join(dir, 'spa', 'main.ts')],
    outfile: join(dir, 'storage', 'spa', 'app.js'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    sourcemap: 'inline',
    absWorkingDir: dir,
    logLevel: 'error',
  })
}

/** Adds the example to an app made by `craft new` with the auth and API steps; then builds it. */
export function applyDemoSpa(dir) {
  mkdirSync(join(dir, 'spa'), { recursive: true })
  copyFileSync(join(here, 'index.html'), join(dir, 'spa', 'index.html'))
  copyFileSync(join(here, 'main.ts'), join(dir, 'spa', 'main.ts'))
  writeFileSync(join(dir, 'app', 'controllers', 'SpaController.ts'), CONTROLLER)
  const web = join(dir, 'routes', 'web.ts')
  const text = readFileSync(web, 'utf8')
  if (!text.includes("'SpaController@page'")) writeFileSync(web, text.replace('export const ROUTES = [', `export const ROUTES = [\n${ROUTES}`))
  buildDemoSpa(dir)
}

/** True when the app has the example (an older demo/ may not). */
export function hasDemoSpa(dir) {
  return existsSync(join(dir, 'spa', 'main.ts'))
}
