/**
 * Black-box: a web login ends after GUARDS.web.idle_timeout minutes without a request, while
 * requests within the timeout keep it alive.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { PASSWORD } from '../helpers/security-kit.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('web login idle timeout', () => {
  let app: TestApp
  let server: Server

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    // 0.1 minutes: 6 seconds, several times the 1.2 s between the active requests below, so that a
    // request slowed by a busy machine still comes in time.
    app.edit('config/auth.ts', (t) => t.replace('web: { model: User }', 'web: { model: User, idle_timeout: 0.1 }'))
    migrate(app)
    server = await app.serve()
  })
  after(() => app.cleanup())

  it('requests within the timeout keep the login; 7 s without one ends it', async () => {
    const browser = new Client(server.url)
    const reg = await browser.submit('/register', '/register', { name: 'Idle', email: 'idle@example.test', password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(reg.location, '/home')
    for (let i = 0; i < 4; i++) {
      await sleep(1200)
      assert.equal((await browser.get('/home')).status, 200, `active request ${i} was logged out`)
    }
    await sleep(7000)
    const idle = await browser.get('/home')
    assert.equal(idle.status, 302)
    assert.match(String(idle.location), /^\/login/)
  })
})
