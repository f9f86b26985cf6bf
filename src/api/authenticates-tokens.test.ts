import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { JwtService } from './jwt-service.js'
import { bindModelApi } from './jwt-service-registry.js'
import { AuthenticatesTokens } from './authenticates-tokens.js'
import { DatabaseManager } from '../database/database-manager.js'
import { hasSecondFactor } from '../auth/login/amr.js'

const SECRET = 's'.repeat(64)

/** Binds `model` to an app's API whose only service in use is `jwt` (and, when given, personal tokens and events). */
function bindJwtService(model: object, jwt: () => JwtService, more: { personalTokens?: unknown; emit?: (name: string, payload: unknown) => void } = {}): void {
  bindModelApi(model, { jwt, personalTokens: () => more.personalTokens as never, events: { emit: (more.emit ?? (() => true)) as never } })
}

class Base {
  constructor(readonly id: number) {}
  getKey(): number {
    return this.id
  }
  static hiddenFields(): string[] {
    return []
  }
}

describe('AuthenticatesTokens.generateJwt', () => {
  it('issues a token whose amr claims no method: no password was typed, and it is no second factor', async () => {
    const digests: (string | null)[] = []
    const provider = { storeDigest: async (_user: unknown, digest: string | null) => void digests.push(digest) }
    const service = new JwtService({ algorithm: 'HS256', secret: SECRET, model: null, expires: 60, version: null, authenticates: false }, provider as never)
    const User = AuthenticatesTokens(Base as never) as unknown as new (id: number) => Base & { generateJwt(): Promise<string> }
    bindJwtService(User, () => service)
    const token = await new User(7).generateJwt()
    const payload = service.verify(token)
    assert.equal(payload.sub, '7')
    assert.deepEqual(payload.amr, [])
    assert.equal(hasSecondFactor(payload.amr as string[]), false)
    assert.equal(digests.length, 1)
  })

  it('issues through the service of the app whose model it is: two models, two services; a model no app serves is refused', async () => {
    const service = (secret: string) => new JwtService({ algorithm: 'HS256', secret, model: null, expires: 60, version: null, authenticates: false }, { storeDigest: async () => {} } as never)
    const one = service('1'.repeat(64))
    const two = service('2'.repeat(64))
    type Issuer = new (id: number) => Base & { generateJwt(): Promise<string> }
    const First = AuthenticatesTokens(Base as never) as unknown as Issuer
    const Second = AuthenticatesTokens(Base as never) as unknown as Issuer
    bindJwtService(First, () => one)
    bindJwtService(Second, () => two)
    class Admin extends First {}
    assert.equal(one.verify(await new First(1).generateJwt()).sub, '1')
    assert.equal(two.verify(await new Second(2).generateJwt()).sub, '2')
    assert.equal(one.verify(await new Admin(3).generateJwt()).sub, '3', 'a subclass inherits its parent model\'s service')
    const fromFirst = await new First(4).generateJwt()
    assert.throws(() => two.verify(fromFirst), 'signed by the first app only')
    const Unserved = AuthenticatesTokens(Base as never) as unknown as Issuer
    await assert.rejects(new Unserved(5).generateJwt(), /JWT API is not enabled for this model/)
  })
})

describe('AuthenticatesTokens.createToken', () => {
  it("creates through the app's personal tokens and tells the app's events (never the token's value)", async () => {
    const made: unknown[] = []
    const events: { name: string; payload: Record<string, unknown> }[] = []
    const personalTokens = {
      create: async (userId: unknown, name: unknown, options: unknown) => {
        made.push([userId, name, options])
        return { token: 'trw_1_secret', id: 1, name, abilities: ['posts:read'] }
      },
    }
    type Creator = new (id: number) => Base & { createToken(name: string, options?: object): Promise<string> }
    const User = AuthenticatesTokens(Base as never) as unknown as Creator
    bindJwtService(User, () => { throw new Error('no JWT here') }, { personalTokens, emit: (name, payload) => void events.push({ name, payload: payload as Record<string, unknown> }) })
    assert.equal(await new User(7).createToken('ci', { abilities: ['posts:read'] }), 'trw_1_secret')
    assert.deepEqual(made, [[7, 'ci', { abilities: ['posts:read'] }]])
    assert.deepEqual(events.map((e) => [e.name, e.payload.name, e.payload.abilities, e.payload.ip]), [['auth:token_issued', 'ci', 'posts:read', '']])
    assert.ok(!JSON.stringify(events).includes('secret'), 'the value is never in the event')
  })

  it("without an app, creates through the model's own database", async () => {
    // SQLite in memory whatever the suite's database: the token table's name is fixed.
    const manager = new DatabaseManager({ default: 'sqlite', sqlite: { driver: 'sqlite', database: ':memory:' } } as never, process.cwd())
    try {
      await manager.connection().schema.createTable('personal_access_tokens', (t) => {
        t.increments('id')
        t.integer('user_id')
        t.string('name')
        t.string('token_hash', 64).unique()
        t.text('abilities')
        t.dateTime('created_at')
        t.dateTime('last_used_at').nullable()
        t.dateTime('expires_at').nullable()
      })
      class Stored extends Base {
        static database() {
          return manager
        }
      }
      const User = AuthenticatesTokens(Stored as never) as unknown as new (id: number) => Base & { createToken(name: string): Promise<string> }
      const token = await new User(9).createToken('script')
      assert.match(token, /^trw_1_/)
      const rows = await manager.connection()('personal_access_tokens').select('user_id', 'name', 'token_hash')
      assert.deepEqual(rows.map((r) => [r.user_id, r.name]), [[9, 'script']])
      assert.notEqual(rows[0].token_hash, token, 'only its digest is stored')
    } finally {
      await manager.close()
    }
  })
})
