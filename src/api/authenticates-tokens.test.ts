import { afterEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { JwtService } from './jwt-service.js'
import { setJwtServiceResolver } from './jwt-service-registry.js'
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
  afterEach(() => setJwtServiceResolver(null))

  it('issues a token whose amr claims no method: no password was typed, and it is no second factor', async () => {
    const digests: (string | null)[] = []
    const provider = { storeDigest: async (_user: unknown, digest: string | null) => void digests.push(digest) }
    const service = new JwtService({ algorithm: 'HS256', secret: SECRET, model: null, expires: 60, version: null, authenticates: false }, provider as never)
    setJwtServiceResolver(() => service)
    const User = AuthenticatesTokens(Base as never) as unknown as new (id: number) => Base & { generateJwt(): Promise<string> }
    const token = await new User(7).generateJwt()
    const payload = service.verify(token)
    assert.equal(payload.sub, '7')
    assert.deepEqual(payload.amr, [])
    assert.equal(hasSecondFactor(payload.amr as string[]), false)
    assert.equal(digests.length, 1)
  })
})
