/**
 * Black-box: what `craft serve` does besides answering requests — pruning the auth tables in one
 * process, stopping by a deadline when a request hangs, and replacing crashing workers with a
 * growing delay instead of a fork loop.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp } from '../helpers/app-harness.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { appDb } from '../helpers/security-kit.js'

const ROUTES = `  Route.get('/hang', () => new Promise(() => {})),
  Route.get('/crash', () => { setImmediate(() => process.exit(3)); return 'bye' }),`

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('craft serve housekeeping', () => {
  let app: TestApp
  let db: Knex

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    app.edit('routes/web.ts', (t) => t.replace('export const ROUTES = [', `export const ROUTES = [\n${ROUTES}`))
    migrate(app)
    db = appDb(app)
  })
  after(async () => {
    await db?.destroy()
    await app.cleanup()
  })

  it('prunes old audit rows and expired logins soon after start, and logs what it removed', async () => {
    const old = new Date(Date.now() - 400 * 86_400_000)
    await db('auth_events').insert({ user_id: null, type: 'auth:login_failed', ip: '192.0.2.1', user_agent: null, details: '{}', created_at: old })
    await db('auth_events').insert({ user_id: null, type: 'auth:login_failed', ip: '192.0.2.2', user_agent: null, details: '{}', created_at: new Date() })
    const server = await app.serve({ TROWEL_PRUNE_FIRST_MS: '300' })
    try {
      let line: string | undefined
      for (let i = 0; i < 100 && !line; i++) {
        await sleep(100)
        line = server.output().split('\n').find((l) => l.includes('auth.pruned'))
      }
      assert.ok(line, 'no auth.pruned line')
      assert.match(line, /"auth_events":1/)
      const left = await db('auth_events').select('ip')
      assert.deepEqual(left.map((r) => r.ip), ['192.0.2.2'])
    } finally {
      await server.stop()
    }
  })

  it('SIGTERM with a request that never ends: the server exits by SHUTDOWN_TIMEOUT', async () => {
    const server = await app.serve({ SHUTDOWN_TIMEOUT: '1' })
    const hanging = fetch(`${server.url}/hang`).catch(() => null)
    await sleep(200)
    const code = await Promise.race([server.stop(), sleep(15_000).then(() => 'still running')])
    assert.notEqual(code, 'still running', 'a hung request kept the server from stopping')
    await hanging
  })

  it('--workers: a crashing worker is replaced with a growing delay', async () => {
    const server = await app.serve({}, ['--workers', '2'])
    try {
      // Driven by the primary's log, one line per exit with the delay it planned for the
      // replacement, never by how long anything takes: on a loaded machine a replacement may
      // take many seconds to boot, and nothing here depends on it.
      const exits = () => server.output().split('\n').filter((l) => /exited \(3\); starting another/.test(l))
      for (let crash = 1; crash <= 3; crash++) {
        // Whichever worker answers /crash exits (3) right after; while none is up (replacements
        // still booting) the request fails or is given up, and is made again.
        while ((await fetch(`${server.url}/crash`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.text()).catch(() => null)) !== 'bye') await sleep(100)
        while (exits().length < crash) await sleep(50)
      }
      // Three crashes within the minute: replaced at once, then after 250 ms, then 500 ms
      // (restartDelay; the third crash needs a replacement to have booted, far under a minute).
      const planned = exits().map((l) => Number(/ in (\d+) ms/.exec(l)?.[1] ?? 0))
      assert.deepEqual(planned.slice(0, 3), [0, 250, 500], server.output())
      // The replacements boot and serve: whenever they are up, a request is answered.
      let status: number | undefined
      while (status !== 200) {
        status = (await fetch(`${server.url}/`, { signal: AbortSignal.timeout(10_000) }).catch(() => null))?.status
        if (status !== 200) await sleep(200)
      }
    } finally {
      await server.stop()
    }
  })
})
