/**
 * Black-box: ending API tokens. POST /api/logout (Bearer) → 204 and the token can neither be used
 * (with `authenticates: true`) nor reissued; POST /api/revoke (RFC 7009) → 200 whatever the token,
 * revoking it only when it is its user's current one; RFC 6750 WWW-Authenticate on the api
 * stack's 401s; every revocation audited.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps, setJwtConfig } from '../helpers/seed-steps.js'
import { appDb } from '../helpers/security-kit.js'

const PASSWORD = 'correct horse battery staple'
const EMAIL = 'revoke@example.test'

describe('API token revocation and RFC 6750 headers', () => {
  let app: TestApp
  let server: Server
  const client = () => new Client(server.url)

  async function token(): Promise<string> {
    const r = await client().postJson('/api/auth', { username: EMAIL, password: PASSWORD })
    assert.equal(r.status, 200, r.text)
    return r.json().data as string
  }
  const me = (t: string) => fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${t}` } })
  const reauth = (t: string) => client().postJson('/api/reauth', { token: t })

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    setJwtConfig(app, { authenticates: 'true' })
    app.edit('config/auth.ts', (t) => t.replace(/\blogin: \{ attempts: [^}]*\}/, 'login: null').replace(/\bip: \{ attempts: [^}]*\}/, 'ip: null'))
    migrate(app)
    server = await app.serve()
    const r = await client().submit('/register', '/register', { name: 'Revoker', email: EMAIL, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home')
  })
  after(() => app.cleanup())

  it('401s of the api stack carry RFC 6750 WWW-Authenticate: realm, and error="invalid_token" for a refused token', async () => {
    const missing = await fetch(`${server.url}/api/me`)
    assert.equal(missing.status, 401)
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="api"')
    const invalid = await me('abc.def.ghi')
    assert.equal(invalid.status, 401)
    assert.equal(invalid.headers.get('www-authenticate'), 'Bearer realm="api", error="invalid_token"')
  })

  it('POST /api/logout: 204, then the token is refused and cannot be reissued; audited', async () => {
    const t = await token()
    assert.equal((await me(t)).status, 200)
    const out = await fetch(`${server.url}/api/logout`, { method: 'POST', headers: { authorization: `Bearer ${t}` } })
    assert.equal(out.status, 204)
    assert.equal(await out.text(), '')
    assert.equal((await me(t)).status, 401)
    assert.equal((await reauth(t)).status, 401)
    const db = appDb(app)
    try {
      const user = await db('users').where('email', EMAIL).first()
      assert.equal(user.api_token, null)
      const events = await db('auth_events').where({ type: 'auth:token_revoked', user_id: user.id })
      assert.ok(events.length >= 1, 'auth:token_revoked audited')
    } finally {
      await db.destroy()
    }
  })

  it('POST /api/logout without a token, or with an invalid one: 401 with the RFC 6750 header', async () => {
    const none = await fetch(`${server.url}/api/logout`, { method: 'POST' })
    assert.equal(none.status, 401)
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="api"')
    const bad = await fetch(`${server.url}/api/logout`, { method: 'POST', headers: { authorization: 'Bearer not.a.token' } })
    assert.equal(bad.status, 401)
    assert.equal(bad.headers.get('www-authenticate'), 'Bearer realm="api", error="invalid_token"')
  })

  it('POST /api/revoke: 200 {} for a current, a replaced, a forged and a garbage token; only the current one is revoked', async () => {
    const old = await token()
    const reissued = await reauth(old)
    assert.equal(reissued.status, 200)
    const current = reissued.json().data as string
    for (const t of [old, 'garbage', `${current.slice(0, -4)}AAAA`]) {
      const r = await client().postJson('/api/revoke', { token: t })
      assert.equal(r.status, 200, t)
      assert.deepEqual(r.json(), {})
      assert.equal((await me(current)).status, 200, 'a replaced or forged token revokes nothing')
    }
    const r = await client().postJson('/api/revoke', { token: current })
    assert.equal(r.status, 200)
    assert.deepEqual(r.json(), {})
    assert.equal((await me(current)).status, 401)
    assert.equal((await reauth(current)).status, 401)
  })

  it('POST /api/revoke revokes an expired current token too (it could still be reissued)', async () => {
    await server.stop()
    setJwtConfig(app, { expires: '0.02' })
    server = await app.serve()
    try {
      const t = await token()
      await new Promise((r) => setTimeout(r, 1500))
      assert.equal((await me(t)).status, 401, 'expired')
      assert.equal((await client().postJson('/api/revoke', { token: t })).status, 200)
      assert.equal((await reauth(t)).status, 401, 'no longer reissuable')
    } finally {
      await server.stop()
      setJwtConfig(app, { expires: 'null' })
      server = await app.serve()
    }
  })

  it('POST /api/revoke without a string token: 422', async () => {
    for (const body of [{}, { token: 12 }, { token: ['a'] }, { token: '' }]) {
      const r = await client().postJson('/api/revoke', body)
      assert.equal(r.status, 422, JSON.stringify(body))
      assert.equal(r.json().code, 'E_VALIDATION')
    }
  })
})
