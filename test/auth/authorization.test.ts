/**
 * Black-box: authorization in a generated app. An `AuthorizationProvider` defines a gate, a policy
 * and a source of role abilities with `Gate` / `registerAbilitySource` from 'trowel/auth'; routes
 * use `can:<ability>`, `ctx.auth.can()` and `ctx.authorize()`. Refusals are 403 `E_FORBIDDEN`
 * (JSON `{message, code}` or the error page); guests are refused, not sent to log in.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyAuthSteps } from '../helpers/seed-steps.js'
import { budgetsOff } from '../helpers/auth-config.js'
import { registerUser } from '../helpers/security-kit.js'

const POST = `export class Post {
  constructor(readonly id: number, readonly authorEmail: string) {}
}
export const POSTS = new Map([[1, new Post(1, 'ada@example.test')], [2, new Post(2, 'bob@example.test')]])
`

const PROVIDER = `import { ServiceProvider } from 'trowel'
import { Gate, registerAbilitySource } from 'trowel/auth'
import { Post } from '../Post.js'

class PostPolicy {
  update(user: { email: string }, _organization: unknown, post: Post): boolean {
    return post.authorEmail === user.email
  }
  view(): boolean {
    return true
  }
}

export class AuthorizationProvider extends ServiceProvider {
  boot(): void {
    Gate.define('reports:view', (user: { email: string }) => user.email.startsWith('ada@'))
    Gate.define('status:view', (user: unknown) => user === null, { guests: true })
    Gate.policy(Post, PostPolicy)
    // Stands in for the organisations feature: ada is an owner, bob may only invite.
    registerAbilitySource(this.application, async (ctx) => {
      const email = ctx.auth.user<{ email: string }>()?.email
      if (email === 'ada@example.test') return ['*']
      if (email === 'bob@example.test') return ['members:invite']
      return null
    })
  }
}
`

const ROUTES = `
  Route.get('/reports', () => ({ data: 'reports' })).middleware(['can:reports:view']),
  Route.get('/status', () => ({ data: 'up' })).middleware(['can:status:view']),
  Route.get('/members/invite', () => ({ data: 'invite' })).middleware(['auth', 'can:members:invite']),
  Route.get('/settings', () => ({ data: 'settings' })).middleware(['can:organization:update']),
  Route.get('/posts/@id/edit', async (ctx) => {
    const post = POSTS.get(Number(ctx.params.id))
    await ctx.authorize('update', post)
    return { data: { id: post!.id, canView: await ctx.auth.can('view', post) } }
  }),
`

describe('authorization (gates, policies, can:)', () => {
  let app: TestApp
  let server: Server
  let ada: Client
  let bob: Client
  let carol: Client

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    applyAuthSteps(app)
    budgetsOff(app)
    mkdirSync(join(app.dir, 'app/providers'), { recursive: true })
    app.write('app/Post.ts', POST)
    app.write('app/providers/AuthorizationProvider.ts', PROVIDER)
    app.edit('config/providers.ts', (t) =>
      `import { AuthorizationProvider } from '../app/providers/AuthorizationProvider.js'\n` + t.replace(/PROVIDERS = \[/, 'PROVIDERS = [\n  AuthorizationProvider,'),
    )
    app.edit('routes/web.ts', (t) => `import { POSTS } from '../app/Post.js'\n` + t.replace('export const ROUTES = [', `export const ROUTES = [${ROUTES}`))
    migrate(app)
    server = await app.serve()
    ada = await registerUser(server.url, 'ada@example.test', 'Ada')
    bob = await registerUser(server.url, 'bob@example.test', 'Bob')
    carol = await registerUser(server.url, 'carol@example.test', 'Carol')
  })
  after(async () => {
    await app?.cleanup()
  })

  const json = { accept: 'application/json' }

  it('can: with a defined gate lets the allowed user in and answers 403 E_FORBIDDEN to others (JSON and page)', async () => {
    const allowed = await ada.get('/reports', json)
    assert.equal(allowed.status, 200, allowed.text)
    assert.equal(allowed.json().data, 'reports')
    const refused = await bob.get('/reports', json)
    assert.equal(refused.status, 403)
    assert.deepEqual(Object.keys(refused.json()).sort(), ['code', 'message'])
    assert.equal(refused.json().code, 'E_FORBIDDEN')
    const page = await bob.get('/reports')
    assert.equal(page.status, 403)
    assert.match(page.headers.get('content-type') ?? '', /text\/html/)
    assert.match(page.text, /<html/i)
  })

  it('refuses a guest with 403 (not a login redirect), unless the gate accepts guests', async () => {
    const guest = new Client(server.url)
    const refused = await guest.get('/reports', json)
    assert.equal(refused.status, 403)
    assert.equal(refused.json().code, 'E_FORBIDDEN')
    assert.equal((await guest.get('/status', json)).status, 200)
    assert.equal((await ada.get('/status', json)).status, 403)
    // With `auth` first, a guest is asked to log in instead.
    const page = await guest.get('/members/invite')
    assert.equal(page.status, 302)
    assert.match(page.location ?? '', /^\/login/)
  })

  it('can: without a gate uses the role abilities ("*" covers all); no membership or an unknown ability is 403', async () => {
    assert.equal((await ada.get('/members/invite', json)).status, 200)
    assert.equal((await bob.get('/members/invite', json)).status, 200)
    assert.equal((await ada.get('/settings', json)).status, 200)
    assert.equal((await bob.get('/settings', json)).status, 403)
    assert.equal((await carol.get('/members/invite', json)).status, 403)
  })

  it('a policy decides by the model of the first argument; ctx.authorize throws 403 when it refuses', async () => {
    const own = await ada.get('/posts/1/edit', json)
    assert.equal(own.status, 200, own.text)
    assert.deepEqual(own.json().data, { id: 1, canView: true })
    const other = await ada.get('/posts/2/edit', json)
    assert.equal(other.status, 403)
    assert.equal(other.json().code, 'E_FORBIDDEN')
    assert.equal((await bob.get('/posts/2/edit', json)).status, 200)
    assert.equal((await new Client(server.url).get('/posts/1/edit', json)).status, 403)
  })

  it('answers many concurrent requests of different users each by its own user', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => [ada, bob, carol][i % 3]!.get('/settings', json)))
    assert.deepEqual(results.map((r) => r.status), Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 200 : 403)))
  })
})
