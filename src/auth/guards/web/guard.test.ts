import { beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { Application } from '../../../foundation/application.js'
import { CookieJar } from '../../../http/cookie-jar.js'
import { Logger } from '../../../support/logger.js'
import { TooManyRequestsError, UnauthorizedError } from '../../../http/errors.js'
import { CredentialVerifier } from '../../credential-verifier.js'
import { LoginThrottle, MemoryThrottleStore } from '../../throttle/index.js'
import { FakeUserProvider, type FakeUser } from '../../../testing/fake-user-provider.js'
import { FakeHasher } from '../../../testing/fake-hasher.js'
import { fakeContext } from '../../../testing/fake-context.js'
import type { LoginTokenRepository } from './login-token-repository.js'
import { WebGuard } from './guard.js'
import { AUTH_COOKIE } from './types.js'
import { FakeLoginTokens } from '../../../testing/fake-login-tokens.js'
import { sha256Hex } from '../../tokens/index.js'

const KEY = 'k'.repeat(40)


describe('WebGuard', () => {
  let app: Application
  let provider: FakeUserProvider
  let tokens: FakeLoginTokens
  let hasher: FakeHasher
  let events: [string, unknown][]
  let verifier: CredentialVerifier

  beforeEach(() => {
    app = new Application(tmpdir(), { log: new Logger({ sink: () => {} }) })
    app.bind('cookies', new CookieJar(KEY))
    provider = new FakeUserProvider()
    provider.add(1, 'ada@example.test', 'plain:correct horse')
    tokens = new FakeLoginTokens()
    hasher = new FakeHasher()
    verifier = new CredentialVerifier(hasher, new LoginThrottle(new MemoryThrottleStore(), { maxAttempts: 2 }), app.log)
    events = []
    for (const name of ['auth:login_succeeded', 'auth:login_failed', 'auth:throttled', 'auth:logout'] as const) {
      app.events.on(name, (payload) => events.push([name, payload]))
    }
  })

  function guard(headers: Record<string, string> = {}): WebGuard<FakeUser> {
    return new WebGuard<FakeUser>('web', fakeContext(app, { headers }), {
      provider,
      verifier,
      tokens: tokens as unknown as LoginTokenRepository,
      events: app.events,
    })
  }

  /** A Cookie header carrying `token` as the signed login cookie. */
  function cookieHeader(token: string): Record<string, string> {
    const value = app.make<CookieJar>('cookies').pack(AUTH_COOKIE, token)
    return { cookie: `${AUTH_COOKIE}=${encodeURIComponent(value)}` }
  }

  describe('authenticate', () => {
    it('throws E_UNAUTHORIZED when the request has no login cookie', async () => {
      await assert.rejects(guard().authenticate(), (e: unknown) => e instanceof UnauthorizedError && e.code === 'E_UNAUTHORIZED')
    })

    it('returns the user of a valid login cookie: the login by token, then the user by primary key', async () => {
      const token = await tokens.create(1)
      const g = guard(cookieHeader(token))
      assert.equal((await g.authenticate()).id, 1)
      assert.equal(g.user?.id, 1)
      assert.equal(g.isAuthenticated, true)
      assert.equal(provider.lookups.byId, 1)
    })

    it('hashes the login token once: the look-up is given the digest the session is bound to', async () => {
      const token = await tokens.create(1)
      const g = guard(cookieHeader(token))
      await g.authenticate()
      assert.deepEqual(tokens.digests, [sha256Hex(token)])
      assert.equal(g.loginTokenHash, sha256Hex(token))
    })

    it('runs once per request: a second call makes no look-up', async () => {
      const g = guard(cookieHeader(await tokens.create(1)))
      await g.authenticate()
      await g.authenticate()
      assert.equal(await g.check(), true)
      assert.equal(provider.lookups.byId, 1)
    })

    it('throws for a revoked login and clears the cookie', async () => {
      const token = await tokens.create(1)
      await tokens.revoke(token)
      const g = guard(cookieHeader(token))
      await assert.rejects(g.authenticate(), UnauthorizedError)
      assert.equal(provider.lookups.byId, 0)
    })

    it('throws when the login names a user that no longer exists', async () => {
      const g = guard(cookieHeader(await tokens.create(99)))
      await assert.rejects(g.authenticate(), UnauthorizedError)
    })
  })

  describe('check and getUserOrFail', () => {
    it('check answers false, not a 401, when nobody is logged in', async () => {
      const g = guard()
      assert.equal(await g.check(), false)
      assert.equal(g.authenticationAttempted, true)
      assert.throws(() => g.getUserOrFail(), UnauthorizedError)
    })
  })

  describe('attempt', () => {
    it('logs the user in: a new login token, the cookie set, login_succeeded emitted', async () => {
      const g = guard()
      const user = await g.attempt('Ada@Example.test', 'correct horse')
      assert.equal(user?.id, 1)
      assert.equal(g.user?.id, 1)
      assert.equal(tokens.rows.size, 1)
      assert.deepEqual(events.map(([name]) => name), ['auth:login_succeeded'])
      const payload = events[0]![1] as { guard: string; ip: string; at: Date }
      assert.equal(payload.guard, 'web')
      assert.equal(payload.ip, '127.0.0.1')
      assert.ok(payload.at instanceof Date)
    })

    it('a wrong password returns null and emits login_failed naming the account', async () => {
      assert.equal(await guard().attempt('ada@example.test', 'wrong'), null)
      assert.equal(tokens.rows.size, 0)
      assert.deepEqual(events.map(([name]) => name), ['auth:login_failed'])
      assert.equal((events[0]![1] as { user: { id: number } }).user.id, 1)
    })

    it('an unknown address costs one hasher call and names no account', async () => {
      assert.equal(await guard().attempt('nobody@example.test', 'whatever'), null)
      assert.equal(hasher.calls, 1)
      assert.equal((events[0]![1] as { user: unknown }).user, null)
    })

    it('throttled: TooManyRequestsError, auth:throttled, and no hasher call', async () => {
      await guard().attempt('ada@example.test', 'wrong 1')
      await guard().attempt('ada@example.test', 'wrong 2')
      const calls = hasher.calls
      await assert.rejects(guard().attempt('ada@example.test', 'correct horse'), TooManyRequestsError)
      assert.equal(hasher.calls, calls)
      assert.equal(events.at(-1)![0], 'auth:throttled')
    })
  })

  describe('logout', () => {
    it('revokes this device\'s login, forgets the user, and emits auth:logout once', async () => {
      const token = await tokens.create(1)
      const g = guard(cookieHeader(token))
      await g.logout()
      assert.equal(tokens.rows.has(token), false)
      assert.equal(g.user, null)
      await assert.rejects(g.authenticate(), UnauthorizedError)
      assert.deepEqual(events.map(([name]) => name), ['auth:logout'])
    })

    it('emits nothing when nobody was logged in', async () => {
      await guard().logout()
      assert.equal(events.length, 0)
    })
  })
})
