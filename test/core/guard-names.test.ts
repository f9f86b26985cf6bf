/**
 * Black-box: a route naming an unknown guard (`auth:<name>`, `guard:<name>`) stops the app at
 * startup with a message naming the route and the guard, instead of a 500 on its first request.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, type TestApp } from '../helpers/app-harness.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'

describe('unknown guard names stop the boot', () => {
  let app: TestApp
  let routes: string

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    routes = app.read('routes/web.ts')
  })
  after(() => app.cleanup())

  async function bootError(middleware: string): Promise<string> {
    app.write('routes/web.ts', routes.replace('export const ROUTES = [', `export const ROUTES = [\n  Route.get('/guarded', () => 'ok').middleware(['${middleware}']),`))
    try {
      const server = await app.serve()
      await server.stop()
    } catch (error) {
      return (error as Error).message
    }
    assert.fail(`the app started with ${middleware}`)
  }

  it('auth:typo names the route and the guard', async () => {
    const message = await bootError('auth:wbe')
    assert.match(message, /GET \/guarded/)
    assert.match(message, /unknown guard "wbe"; known guards: web/)
  })

  it('auth:jwt without ApiProvider says where the jwt guard comes from', async () => {
    const message = await bootError('auth:jwt')
    assert.match(message, /unknown guard "jwt"/)
    assert.match(message, /ApiProvider/)
  })

  it('a known guard boots', async () => {
    app.write('routes/web.ts', routes.replace('export const ROUTES = [', `export const ROUTES = [\n  Route.get('/guarded', () => 'ok').middleware(['auth:web']),`))
    const server = await app.serve()
    assert.equal((await fetch(`${server.url}/guarded`, { redirect: 'manual' })).status, 302)
    await server.stop()
  })
})
