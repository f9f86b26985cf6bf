import { beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { Application } from '../../../foundation/application.js'
import { Logger } from '../../../support/logger.js'
import { UnauthorizedError } from '../../../http/errors.js'
import { CredentialVerifier } from '../../../auth/credential-verifier.js'
import { LoginThrottle, MemoryThrottleStore } from '../../../auth/throttle/index.js'
import { FakeUserProvider, type FakeUser } from '../../../testing/fake-user-provider.js'
import { FakeHasher } from '../../../testing/fake-hasher.js'
import { fakeContext } from '../../../testing/fake-context.js'
import { JwtService } from '../../jwt-service.js'
import { JwtExpiredError, JwtRevokedError, sha256Hex } from '../../jwt/index.js'
import { ReauthFailedError, TokenInvalidError, TokenMissingError } from '../../errors.js'
import { JwtGuard } from './guard.js'

const SECRET = 's'.repeat(64)

describe('JwtGuard', () => {
  let app: Application
  let provider: FakeUserProvider
  let ada: FakeUser
  let logs: string[]
  let events: [string, unknown][]

  beforeEach(() => {
    logs = []
    app = new Application(tmpdir(), { log: new Logger({ sink: (line) => logs.push(line) }) })
    provider = new FakeUserProvider()
    ada = provider.add(1, 'ada@example.test', 'plain:correct horse')
    events = []
    for (const name of ['auth:login_succeeded', 'auth:token_issued', 'auth:token_reissued', 'auth:token_revoked'] as const) {
      app.events.on(name, (payload) => events.push([name, payload]))
    }
  })

  function service(options: { authenticates?: boolean; expires?: number | null } = {}): JwtService<FakeUser> {
    return new JwtService<FakeUser>(
      { algorithm: 'HS512', secret: SECRET, model: null, expires: options.expires ?? null, version: null, authenticates: options.authenticates ?? false },
      provider,
    )
  }

  function guard(jwt: JwtService<FakeUser>, token?: string): JwtGuard<FakeUser> {
    const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
    const verifier = new CredentialVerifier(new FakeHasher(), new LoginThrottle(new MemoryThrottleStore()), app.log)
    return new JwtGuard('jwt', fakeContext(app, { headers }), { jwt, provider, verifier, events: app.events })
  }

  describe('verifyRequest', () => {
    it('throws E_TOKEN_MISSING without an Authorization header, and logs the refusal', async () => {
      await assert.rejects(guard(service()).verifyRequest(), TokenMissingError)
      assert.ok(logs.some((l) => l.includes('auth.token_rejected') && l.includes('E_TOKEN_MISSING')))
    })

    it('throws E_TOKEN_INVALID for a forged token, with the JwtError as cause', async () => {
      const jwt = service()
      const token = await jwt.issue(ada)
      const forged = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA')
      await assert.rejects(guard(jwt, forged).verifyRequest(), (e: unknown) => e instanceof TokenInvalidError && e.cause !== undefined)
    })

    it('with authenticates false, answers without a promise; a refusal is thrown again, logged once', () => {
      const jwt = service()
      const { token } = jwt.codec.sign('1')
      const g = guard(jwt, token)
      const verified = g.verifyRequestNow()
      assert.ok(!(verified instanceof Promise))
      assert.equal(verified.payload.sub, '1')
      assert.equal(g.verifyRequestNow(), verified)
      const refused = guard(jwt, token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'))
      assert.throws(() => refused.verifyRequestNow(), TokenInvalidError)
      assert.throws(() => refused.verifyRequestNow(), TokenInvalidError)
      assert.equal(logs.filter((l) => l.includes('auth.token_rejected')).length, 1)
    })

    it('with authenticates false, makes no look-up at all', async () => {
      const jwt = service()
      const token = await jwt.issue(ada)
      const verified = await guard(jwt, token).verifyRequest()
      assert.equal(verified.payload.sub, '1')
      assert.equal(provider.lookups.byId, 0)
    })

    it('leaves the verified token in ctx.state.jwt for routes that need only its claims', async () => {
      const jwt = service()
      const ctx = fakeContext(app, { headers: { authorization: `Bearer ${await jwt.issue(ada)}` } })
      const verifier = new CredentialVerifier(new FakeHasher(), new LoginThrottle(new MemoryThrottleStore()), app.log)
      await new JwtGuard('jwt', ctx, { jwt, provider, verifier, events: app.events }).verifyRequest()
      assert.equal(ctx.state.jwt?.payload.sub, '1')
    })

    it('with authenticates true, refuses a replaced token after one primary-key look-up', async () => {
      const jwt = service({ authenticates: true })
      const old = await jwt.issue(ada)
      await jwt.issue(ada)
      await assert.rejects(guard(jwt, old).verifyRequest(), TokenInvalidError)
      assert.equal(provider.lookups.byId, 1)
    })
  })

  describe('one look-up per request', () => {
    it('verifyRequest, subject, authenticate and check together read the user once', async () => {
      const jwt = service({ authenticates: true })
      const g = guard(jwt, await jwt.issue(ada))
      await g.verifyRequest()
      const subject = await g.subject()
      const user = await g.authenticate()
      assert.equal(await g.check(), true)
      assert.equal(subject, user, 'request.user() and auth.user() are the same object')
      assert.equal(provider.lookups.byId, 1)
    })
  })

  describe('authenticate and subject', () => {
    it('a replaced token still names its subject, but authenticates nobody (authenticates false)', async () => {
      const jwt = service()
      const old = await jwt.issue(ada)
      await jwt.issue(ada)
      const g = guard(jwt, old)
      assert.equal((await g.subject()).id, 1)
      assert.equal(await g.check(), false)
      assert.equal(g.user, null)
      assert.throws(() => g.getUserOrFail(), TokenInvalidError)
    })

    it('a token whose user is gone: subject() throws E_TOKEN_INVALID', async () => {
      const jwt = service()
      const token = await jwt.issue(ada)
      provider.users.delete(1)
      await assert.rejects(guard(jwt, token).subject(), TokenInvalidError)
    })

    it('without a token, getUserOrFail throws E_TOKEN_MISSING (an UnauthorizedError)', async () => {
      const g = guard(service())
      assert.equal(await g.check(), false)
      assert.throws(() => g.getUserOrFail(), (e: unknown) => e instanceof TokenMissingError && e instanceof UnauthorizedError)
    })
  })

  describe('attempt and login', () => {
    it('issues a token whose digest is stored, emitting login_succeeded and token_issued once each', async () => {
      const g = guard(service())
      const user = await g.attempt('ada@example.test', 'correct horse')
      assert.equal(user?.id, 1)
      assert.equal(typeof g.token, 'string')
      assert.equal(ada.token, sha256Hex(g.token!))
      assert.deepEqual(events.map(([n]) => n).sort(), ['auth:login_succeeded', 'auth:token_issued'])
    })

    it('a login challenge (the second-factor hook) runs after a correct password and can hold the login back', async () => {
      const seen: string[] = []
      const held = new UnauthorizedError('A second factor is required.', { code: 'E_MFA_REQUIRED' })
      const challenge = async (_ctx: unknown, name: string, user: { getKey(): unknown }) => {
        seen.push(`${name}:${String(user.getKey())}`)
        if (user.getKey() === 1) throw held
      }
      const verifier = new CredentialVerifier(new FakeHasher(), new LoginThrottle(new MemoryThrottleStore()), app.log)
      const jwt = service()
      const g = new JwtGuard('jwt', fakeContext(app), { jwt, provider, verifier, events: app.events, challenge })
      assert.equal(await g.attempt('ada@example.test', 'wrong'), null, 'a wrong password never reaches the challenge')
      assert.deepEqual(seen, [])
      await assert.rejects(g.attempt('ada@example.test', 'correct horse'), (e: unknown) => e === held)
      assert.deepEqual(seen, ['jwt:1'])
      assert.equal(g.token, null, 'no token issued')
      assert.equal(ada.token ?? null, null, 'nothing stored')
      assert.deepEqual(events.filter(([n]) => n === 'auth:login_succeeded' || n === 'auth:token_issued'), [])
      provider.add(2, 'bob@example.test', 'plain:bob password')
      const ok = new JwtGuard('jwt', fakeContext(app), { jwt, provider, verifier, events: app.events, challenge })
      assert.equal((await ok.attempt('bob@example.test', 'bob password'))?.id, 2, 'a challenge that returns lets the login happen')
      assert.equal(typeof ok.token, 'string')
    })
  })

  describe('reissue', () => {
    it('replaces the stored digest; the old token can never be reissued again', async () => {
      const jwt = service({ expires: 0.001 })
      const first = await jwt.issue(ada)
      const second = await guard(jwt).reissue(first)
      assert.equal(ada.token, sha256Hex(second))
      await assert.rejects(guard(jwt).reissue(first), (e: unknown) => e instanceof ReauthFailedError && e.cause instanceof JwtRevokedError)
      assert.equal(events.filter(([n]) => n === 'auth:token_reissued').length, 1)
    })

    it('of concurrent reissues with one token exactly one succeeds', async () => {
      const jwt = service()
      const token = await jwt.issue(ada)
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => guard(jwt).reissue(token)))
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1)
    })

    it('the JWT layer itself throws JwtErrors, never HTTP errors', async () => {
      const jwt = service({ expires: 0.0001 })
      const token = await jwt.issue(ada)
      await new Promise((r) => setTimeout(r, 1100))
      assert.throws(() => jwt.verify(token), JwtExpiredError)
      await assert.rejects(jwt.reissue('not a token'), (e: unknown) => !(e instanceof UnauthorizedError))
    })
  })

  describe('logout', () => {
    it('clears the stored digest and emits token_revoked', async () => {
      const jwt = service()
      const g = guard(jwt, await jwt.issue(ada))
      await g.logout()
      assert.equal(ada.token, null)
      assert.equal(g.user, null)
      assert.deepEqual(events.map(([n]) => n), ['auth:token_revoked'])
    })
  })
})
