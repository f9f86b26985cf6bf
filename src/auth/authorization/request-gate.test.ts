import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { Application } from '../../foundation/application.js'
import { Logger } from '../../support/logger.js'
import { fakeContext } from '../../testing/fake-context.js'
import { HttpError } from '../../http/http-error.js'
import { RouteDefinitionError } from '../../routing/errors.js'
import { Auth } from '../auth.js'
import type { AuthManager } from '../auth-manager.js'
import type { HttpContext } from '../../http/context.js'
import { Gate, gateOf, installGate, registerAbilitySource } from './gate.js'
import { CanMiddleware } from './can-middleware.js'
import './context-authorize.js'

class User {
  constructor(readonly id: number) {}
  getKey(): number {
    return this.id
  }
}

function newApp(): Application {
  const app = new Application(tmpdir(), { log: new Logger({ sink: () => {} }) })
  installGate(app)
  return app
}

/** A request of `app` whose guard knows `user` (null: a guest). */
function request(app: Application, user: User | null, organization: { id: number; name: string; slug: string } | null = null): HttpContext {
  const ctx = fakeContext(app)
  const guard = { check: async () => user !== null, user }
  const manager = { defaultGuard: 'web', createGuard: () => guard } as unknown as AuthManager
  ctx.auth = new Auth(ctx, manager)
  if (organization) ctx.organization = organization
  return ctx
}

const isForbidden = (e: unknown): boolean => e instanceof HttpError && e.status === 403 && e.code === 'E_FORBIDDEN'

describe('authorization in a request', () => {
  it('ctx.auth.can asks the app\'s gate with ctx.organization ?? null', async () => {
    const app = newApp()
    const seen: unknown[] = []
    gateOf(app).define('posts:publish', (user: User, organization, extra) => {
      seen.push(organization, extra)
      return user.id === 1
    })
    const acme = { id: 3, name: 'Acme', slug: 'acme' }
    assert.equal(await request(app, new User(1), acme).auth.can('posts:publish', 'x'), true)
    assert.equal(await request(app, new User(2)).auth.can('posts:publish'), false)
    assert.deepEqual(seen, [acme, 'x', null, undefined])
  })

  it('ctx.auth.authorize and ctx.authorize throw 403 E_FORBIDDEN when denied, resolve when allowed', async () => {
    const app = newApp()
    gateOf(app).define('admin', (user: User) => user.id === 1)
    await request(app, new User(1)).authorize('admin')
    await request(app, new User(1)).auth.authorize('admin')
    await assert.rejects(request(app, new User(2)).authorize('admin'), isForbidden)
    await assert.rejects(request(app, new User(2)).auth.authorize('admin'), isForbidden)
    await assert.rejects(request(app, null).authorize('admin'), isForbidden)
    await assert.rejects(request(app, new User(1)).authorize('unknown'), isForbidden)
  })

  it('falls back to the role abilities for argument-less questions ("*" covers all)', async () => {
    const app = newApp()
    const roles = new Map<number, string[]>([[1, ['*']], [2, ['members:invite']]])
    let reads = 0
    registerAbilitySource(app, async (ctx) => {
      reads++
      const user = ctx.auth.user<User>()
      return user ? (roles.get(user.id) ?? null) : null
    })
    const owner = request(app, new User(1))
    assert.equal(await owner.auth.can('organization:update'), true)
    const admin = request(app, new User(2))
    assert.equal(await admin.auth.can('members:invite'), true)
    assert.equal(await admin.auth.can('members:remove'), false)
    assert.equal(reads, 2, 'the membership is read once per request')
    assert.equal(await request(app, new User(3)).auth.can('members:invite'), false, 'no membership')
    // With arguments, only a gate or a policy may answer: '*' does not reach into models.
    assert.equal(await owner.auth.can('organization:update', { id: 9 }), false)
  })

  it('reads the role abilities again when the current organisation changes within the request', async () => {
    const app = newApp()
    registerAbilitySource(app, async (ctx) => (ctx.organization?.slug === 'acme' ? ['reports:view'] : null))
    const ctx = request(app, new User(1))
    assert.equal(await ctx.auth.can('reports:view'), false)
    ctx.organization = { id: 1, name: 'Acme', slug: 'acme' }
    assert.equal(await ctx.auth.can('reports:view'), true)
  })

  it('a defined gate wins over the role abilities', async () => {
    const app = newApp()
    registerAbilitySource(app, async () => ['*'])
    gateOf(app).define('billing', () => false)
    assert.equal(await request(app, new User(1)).auth.can('billing'), false)
  })

  describe('can: middleware', () => {
    const middleware = (app: Application): CanMiddleware => new CanMiddleware(app)

    it('lets an allowed request through and answers 403 otherwise', async () => {
      const app = newApp()
      gateOf(app).define('reports', (user: User, organization) => organization !== null && user.id === 1)
      const acme = { id: 3, name: 'Acme', slug: 'acme' }
      assert.equal(await middleware(app).before(request(app, new User(1), acme), 'reports'), undefined)
      await assert.rejects(middleware(app).before(request(app, new User(1)), 'reports'), isForbidden)
      await assert.rejects(middleware(app).before(request(app, null, acme), 'reports'), isForbidden)
      await assert.rejects(middleware(app).before(request(app, new User(1), acme), 'unknown'), isForbidden)
    })

    it('uses the role abilities when no gate is defined, and needs every listed ability', async () => {
      const app = newApp()
      registerAbilitySource(app, async () => ['members:invite'])
      await middleware(app).before(request(app, new User(1)), 'members:invite')
      await assert.rejects(middleware(app).before(request(app, new User(1)), 'members:invite', 'members:remove'), isForbidden)
      await assert.rejects(middleware(app).before(request(app, null), 'members:invite'), isForbidden)
    })

    it('refuses a route without an ability, or with a malformed one, at startup', () => {
      const app = newApp()
      assert.throws(() => middleware(app).validate('Route GET /x: "can"'), RouteDefinitionError)
      assert.throws(() => middleware(app).validate('Route GET /x: "can:a b"', 'a b'), RouteDefinitionError)
      middleware(app).validate('Route GET /x: "can:members:invite"', 'members:invite')
    })
  })

  it('keeps each application\'s gates apart; the Gate facade speaks for the app created last', async () => {
    const first = newApp()
    Gate.define('shared', () => true)
    const second = newApp()
    Gate.define('shared', () => false)
    assert.equal(await request(first, new User(1)).auth.can('shared'), true)
    assert.equal(await request(second, new User(1)).auth.can('shared'), false)
    assert.equal(Gate.has('shared'), true)
    assert.equal(await Gate.forUser(new User(1)).can('shared'), false)
    await assert.rejects(Gate.forUser(null).authorize('shared'), isForbidden)
  })
})
