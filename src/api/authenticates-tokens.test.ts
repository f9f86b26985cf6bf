import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { JwtService } from './jwt-service.js'
import { bindJwtService } from './jwt-service-registry.js'
import { AuthenticatesTokens } from './authenticates-tokens.js'
import { hasSecondFactor } from '../auth/login/amr.js'

const SECRET = 's'.repeat(64)

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
