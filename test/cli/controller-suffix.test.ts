/**
 * Black-box: `craft controller Posts -a` writes PostsController.ts with class PostsController (the
 * suffix is added when the name lacks it), which `Route.api('posts', 'PostsController')` serves.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, type TestApp } from '../helpers/app-harness.js'

describe('craft controller adds the Controller suffix', () => {
  let app: TestApp
  before(async () => {
    app = await newApp()
  })
  after(() => app.cleanup())

  it('Posts -a → app/controllers/PostsController.ts, class PostsController, served by Route.api', async () => {
    const r = app.craft('controller', 'Posts', '-a')
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /app\/controllers\/PostsController\.ts/)
    assert.ok(!app.exists('app/controllers/Posts.ts'))
    assert.match(app.read('app/controllers/PostsController.ts'), /export class PostsController\b/)
    app.edit('routes/web.ts', (t) => t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.api('posts', 'PostsController'),"))
    const server = await app.serve()
    try {
      assert.equal((await fetch(`${server.url}/posts`)).status, 200)
    } finally {
      await server.stop()
    }
  })

  it('a name that has the suffix keeps it; subfolders work', () => {
    assert.equal(app.craft('controller', 'PagesController').code, 0)
    assert.ok(app.exists('app/controllers/PagesController.ts'))
    assert.equal(app.craft('controller', 'admin/Users').code, 0)
    assert.match(app.read('app/controllers/admin/UsersController.ts'), /export class UsersController\b/)
  })
})
