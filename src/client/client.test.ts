import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createClient, memoryStorage, TrowelError, webStorage, type LockManagerLike, type TokenStorage } from './index.js'

/**
 * A fake Trowel API: tokens are `t<n>`; only the latest one is accepted on /api/me; reauth swaps
 * the presented current token for the next one (a replaced one within the "reuse window" gets
 * the same successor, as the server's families do). Every answer waits a tick, so concurrent
 * requests really overlap.
 */
function fakeServer(options: { reuseWindow?: boolean; refuseReauth?: boolean; reauthDelay?: number; holdReauth?: boolean } = {}) {
  let current = ''
  // holdReauth: every reauth waits at the server until the test calls releaseReauth().
  let releaseReauth = () => {}
  const reauthGate = new Promise<void>((resolve) => (releaseReauth = resolve))
  let n = 0
  const expired = new Set<string>()
  const successors = new Map<string, string>()
  const calls: { method: string; path: string; auth: string | null; body: unknown }[] = []
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
  const fetch = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input)
    const headers = new Headers(init.headers)
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined
    const auth = headers.get('authorization')
    calls.push({ method: init.method ?? 'GET', path: url.pathname, auth, body })
    await new Promise((resolve) => setTimeout(resolve, 2))
    switch (url.pathname) {
      case '/api/auth':
        if (body.password !== 'right') return json(401, { message: 'Could not find username or password', code: 'E_INVALID_CREDENTIALS' })
        if (body.username === 'mfa@example.com') return json(401, { message: 'A second factor is required.', code: 'E_MFA_REQUIRED', mfa_token: 'm1' })
        current = `t${++n}`
        return json(200, { data: current })
      case '/api/auth/two-factor':
        if (body.mfa_token !== 'm1') return json(422, { message: 'Invalid', code: 'E_VALIDATION', errors: { mfa_token: ['used'] } })
        if (body.code !== '123456' && body.recovery_code !== 'rc-1') return json(422, { message: 'Invalid', code: 'E_VALIDATION', errors: { code: ['wrong'] } })
        current = `t${++n}`
        return json(200, { data: current })
      case '/api/reauth': {
        if (options.reauthDelay) await new Promise((resolve) => setTimeout(resolve, options.reauthDelay))
        if (options.holdReauth) await reauthGate
        if (options.refuseReauth) return json(401, { message: 'Could not reauthenticate based on given token.', code: 'E_REAUTH_FAILED' })
        if (body.token === current) {
          const next = `t${++n}`
          successors.set(current, next)
          current = next
          return json(200, { data: next })
        }
        const successor = successors.get(body.token)
        if (successor && options.reuseWindow) return json(200, { data: successor })
        return json(401, { message: 'Could not reauthenticate based on given token.', code: 'E_REAUTH_FAILED' })
      }
      case '/api/me':
        if (!auth) return json(401, { message: 'Authentication token missing', code: 'E_TOKEN_MISSING' })
        if (auth !== `Bearer ${current}` || expired.has(current)) return json(401, { message: 'Token invalid. Try reauthenticating.', code: 'E_TOKEN_INVALID' })
        return json(200, { data: { email: 'ada@example.com' } })
      case '/api/busy':
        return json(429, { message: 'Too many requests.', code: 'E_TOO_MANY_REQUESTS' }, { 'retry-after': '7' })
      case '/api/logout':
        return auth === `Bearer ${current}` && !expired.has(current) ? new Response(null, { status: 204 }) : json(401, { message: 'Token invalid.', code: 'E_TOKEN_INVALID' })
      case '/api/revoke':
        return json(200, {})
      default:
        return json(404, { message: 'Not found.', code: 'E_NOT_FOUND' })
    }
  }
  return {
    fetch,
    calls,
    reauths: () => calls.filter((c) => c.path === '/api/reauth').length,
    releaseReauth: () => releaseReauth(),
    /** The server's clock moves on: the current token expires (it can still be reauthenticated). */
    expire() {
      expired.add(current)
    },
  }
}

/** Web Locks between "tabs": one exclusive lock per name, granted in order. */
function fakeLocks(): LockManagerLike & { grants: number } {
  const tails = new Map<string, Promise<unknown>>()
  const manager = {
    grants: 0,
    request<T>(name: string, callback: (lock: unknown) => Promise<T> | T): Promise<T> {
      const before = tails.get(name) ?? Promise.resolve()
      const run = before.then(() => {
        manager.grants++
        return callback({ name })
      })
      tails.set(name, run.catch(() => undefined))
      return run
    },
  }
  return manager
}

const BASE = 'https://app.example.com'

/** Resolves once `condition()` holds, checked at every turn of the event loop (fails after 10 s). */
async function until(condition: () => boolean): Promise<void> {
  for (const started = Date.now(); !condition(); ) {
    if (Date.now() - started > 10_000) throw new Error(`not reached: ${condition}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('trowel/client', () => {
  it('logs in, stores the token and sends it as Bearer', async () => {
    const server = fakeServer()
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, locks: null, broadcastChannel: null })
    assert.equal(await client.auth.token(), null)
    assert.equal(await client.auth.login('ada@example.com', 'right'), 't1')
    assert.deepEqual(await client.get('/api/me'), { data: { email: 'ada@example.com' } })
    assert.equal(server.calls.at(-1)?.auth, 'Bearer t1')
    assert.equal(server.calls[0]?.auth, null, 'no token is sent to the token route')
  })

  it('a wrong password is a TrowelError E_INVALID_CREDENTIALS and stores nothing', async () => {
    const server = fakeServer()
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, locks: null, broadcastChannel: null })
    const error = await client.auth.login('ada@example.com', 'wrong').catch((e: unknown) => e)
    assert.ok(error instanceof TrowelError)
    assert.equal(error.status, 401)
    assert.equal(error.code, 'E_INVALID_CREDENTIALS')
    assert.equal(await client.auth.token(), null)
  })

  it('the second factor: E_MFA_REQUIRED carries mfaToken; twoFactor finishes with a code or a recovery code', async () => {
    const server = fakeServer()
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, locks: null, broadcastChannel: null })
    const error = (await client.auth.login('mfa@example.com', 'right').catch((e: unknown) => e)) as TrowelError
    assert.equal(error.code, 'E_MFA_REQUIRED')
    assert.equal(error.mfaToken, 'm1')
    const wrong = (await client.auth.twoFactor('m1', '000000').catch((e: unknown) => e)) as TrowelError
    assert.equal(wrong.status, 422)
    assert.deepEqual(wrong.errors, { code: ['wrong'] })
    assert.equal(await client.auth.twoFactor('m1', '123456'), 't1')
    assert.deepEqual(server.calls.at(-1)?.body, { mfa_token: 'm1', code: '123456' })
    assert.equal(await client.auth.twoFactor('m1', { recoveryCode: 'rc-1' }), 't2')
    assert.deepEqual(server.calls.at(-1)?.body, { mfa_token: 'm1', recovery_code: 'rc-1' })
    // The object forms.
    await client.auth.twoFactor({ mfaToken: 'm1', code: '123456' })
    assert.deepEqual(server.calls.at(-1)?.body, { mfa_token: 'm1', code: '123456' })
    await client.auth.twoFactor({ mfaToken: 'm1', recoveryCode: 'rc-1' })
    assert.deepEqual(server.calls.at(-1)?.body, { mfa_token: 'm1', recovery_code: 'rc-1' })
    await client.auth.login({ email: 'ada@example.com', password: 'right' })
    assert.deepEqual(server.calls.at(-1)?.body, { username: 'ada@example.com', password: 'right' })
  })

  it('20 concurrent 401s E_TOKEN_INVALID: one reauth, each request retried once and succeeding', async () => {
    const server = fakeServer()
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, locks: null, broadcastChannel: null })
    await client.auth.login('ada@example.com', 'right')
    server.expire()
    const before = server.calls.length
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.get<{ data: { email: string } }>('/api/me')))
    assert.ok(answers.every((a) => a.data.email === 'ada@example.com'))
    assert.equal(server.reauths(), 1)
    // 20 first tries, one reauth, 20 retries: nobody tried three times.
    assert.equal(server.calls.length - before, 41)
  })

  it('two tabs sharing storage take turns through locks: 10 concurrent 401s each, one reauth in all', async () => {
    const server = fakeServer()
    const storage = memoryStorage()
    const locks = fakeLocks()
    const tab1 = createClient({ baseUrl: BASE, fetch: server.fetch, storage, locks })
    const tab2 = createClient({ baseUrl: BASE, fetch: server.fetch, storage, locks })
    await tab1.auth.login('ada@example.com', 'right')
    server.expire()
    const calls = [...Array.from({ length: 10 }, () => tab1.get('/api/me')), ...Array.from({ length: 10 }, () => tab2.get('/api/me'))]
    await Promise.all(calls)
    assert.equal(server.reauths(), 1, 'the second tab read the new token from storage inside its turn')
    assert.equal(locks.grants, 2)
  })

  it("two tabs whose storage passes writes between them late (as Chromium's localStorage does): still one reauth", async () => {
    const server = fakeServer({ reauthDelay: 20 })
    const locks = fakeLocks()
    // Each tab sees its own writes at once and the other tab's 40 ms later.
    const views = [new Map<string, string>(), new Map<string, string>()]
    const lagging = (own: number): TokenStorage => ({
      get: (key) => views[own]!.get(key) ?? null,
      set: (key, value) => {
        views[own]!.set(key, value)
        setTimeout(() => views[1 - own]!.set(key, value), 40)
      },
      remove: (key) => {
        views[own]!.delete(key)
        setTimeout(() => views[1 - own]!.delete(key), 40)
      },
    })
    const tab1 = createClient({ baseUrl: BASE, fetch: server.fetch, storage: lagging(0), locks })
    const tab2 = createClient({ baseUrl: BASE, fetch: server.fetch, storage: lagging(1), locks })
    await tab1.auth.login('ada@example.com', 'right')
    await new Promise((resolve) => setTimeout(resolve, 60))
    server.expire()
    await Promise.all([...Array.from({ length: 5 }, () => tab1.get('/api/me')), ...Array.from({ length: 5 }, () => tab2.get('/api/me'))])
    assert.equal(server.reauths(), 1, 'the tab that waited found the new token once it arrived')
  })

  for (const channel of [true, false]) {
    it(`two tabs without locks, ${channel ? 'with' : 'without'} a BroadcastChannel: ${channel ? 'one reauth' : 'two reauths (the race the reuse window covers)'}`, async () => {
      const server = fakeServer({ holdReauth: true, reuseWindow: true })
      const storage = memoryStorage()
      const options = { baseUrl: BASE, fetch: server.fetch, storage, locks: null, broadcastChannel: channel ? BroadcastChannel : null }
      const tab1 = createClient(options)
      const tab2 = createClient(options)
      try {
        await tab1.auth.login('ada@example.com', 'right')
        server.expire()
        // Tab 1's reauth is held at the server while tab 2 gets its 401. Without the channel tab 2
        // sends a reauth of its own, which is awaited; with it, tab 2 waits for tab 1's "done",
        // then reads the new token from storage (had it sent a reauth, the count below shows it).
        const first = tab1.auth.reauth()
        await until(() => server.reauths() === 1)
        const second = tab2.get<{ data: { email: string } }>('/api/me')
        await until(() => server.calls.filter((c) => c.path === '/api/me').length === 1)
        if (channel) await new Promise((resolve) => setTimeout(resolve, 20))
        else await until(() => server.reauths() === 2)
        server.releaseReauth()
        const [, me] = await Promise.all([first, second])
        assert.equal(me.data.email, 'ada@example.com')
      } finally {
        tab1.close()
        tab2.close()
      }
      assert.equal(server.reauths(), channel ? 1 : 2)
    })
  }

  it('by default, clients of one process take turns in memory: one reauth without Web Locks', async () => {
    const server = fakeServer({ reauthDelay: 50 })
    const storage = memoryStorage()
    const first = createClient({ baseUrl: BASE, fetch: server.fetch, storage })
    const second = createClient({ baseUrl: BASE, fetch: server.fetch, storage })
    await first.auth.login('ada@example.com', 'right')
    server.expire()
    await Promise.all([...Array.from({ length: 10 }, () => first.get('/api/me')), ...Array.from({ length: 10 }, () => second.get('/api/me'))])
    assert.equal(server.reauths(), 1)
  })

  it('tabs racing without any coordination still succeed thanks to the server reuse window', async () => {
    const server = fakeServer({ reuseWindow: true })
    const storage = memoryStorage()
    const tab1 = createClient({ baseUrl: BASE, fetch: server.fetch, storage, locks: null, broadcastChannel: null })
    const tab2 = createClient({ baseUrl: BASE, fetch: server.fetch, storage, locks: null, broadcastChannel: null })
    await tab1.auth.login('ada@example.com', 'right')
    server.expire()
    const answers = await Promise.all([...Array.from({ length: 5 }, () => tab1.get('/api/me')), ...Array.from({ length: 5 }, () => tab2.get('/api/me'))])
    assert.equal(answers.length, 10)
  })

  it('a refused reauth clears storage, rejects every waiting request and calls onSignedOut', async () => {
    const server = fakeServer({ refuseReauth: true })
    const storage: TokenStorage = memoryStorage()
    let signedOut: TrowelError | null = null
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, storage, locks: null, broadcastChannel: null, onSignedOut: (e) => (signedOut = e) })
    await client.auth.login('ada@example.com', 'right')
    server.expire()
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => client.get('/api/me')))
    assert.ok(results.every((r) => r.status === 'rejected' && (r.reason as TrowelError).code === 'E_REAUTH_FAILED'))
    assert.equal(server.reauths(), 1)
    assert.equal(await storage.get('trowel.token'), null)
    assert.equal((signedOut as TrowelError | null)?.code, 'E_REAUTH_FAILED')
    const later = (await client.get('/api/me').catch((e: unknown) => e)) as TrowelError
    assert.equal(later.code, 'E_TOKEN_MISSING')
  })

  it('only E_TOKEN_INVALID reauthenticates: E_TOKEN_MISSING and 429 go to the caller, with retryAfter', async () => {
    const server = fakeServer()
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, locks: null, broadcastChannel: null })
    const missing = (await client.get('/api/me').catch((e: unknown) => e)) as TrowelError
    assert.equal(missing.code, 'E_TOKEN_MISSING')
    await client.auth.login('ada@example.com', 'right')
    const busy = (await client.get('/api/busy').catch((e: unknown) => e)) as TrowelError
    assert.equal(busy.status, 429)
    assert.equal(busy.retryAfter, 7)
    assert.equal(server.reauths(), 0)
  })

  it('a reauth that hangs is given up after reauthTimeout (E_NETWORK), keeping the token', async () => {
    const server = fakeServer()
    const fetch = (input: string, init: RequestInit = {}): Promise<Response> => {
      if (!input.endsWith('/api/reauth')) return server.fetch(input, init)
      return new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new Error('aborted'))))
    }
    const client = createClient({ baseUrl: BASE, fetch, locks: null, broadcastChannel: null, reauthTimeout: 50 })
    const token = await client.auth.login('ada@example.com', 'right')
    server.expire()
    const results = await Promise.allSettled([client.get('/api/me'), client.get('/api/me')])
    assert.ok(results.every((r) => r.status === 'rejected' && (r.reason as TrowelError).code === 'E_NETWORK'))
    assert.equal(await client.auth.token(), token)
  })

  it('client.fetch answers the Response unread, refreshing on E_TOKEN_INVALID as the helpers do', async () => {
    const server = fakeServer()
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, locks: null, broadcastChannel: null })
    await client.auth.login('ada@example.com', 'right')
    server.expire()
    const response = await client.fetch('/api/me')
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), { data: { email: 'ada@example.com' } })
    assert.equal(server.reauths(), 1)
    const missing = await client.fetch('/api/nothing')
    assert.equal(missing.status, 404)
    assert.equal(((await missing.json()) as { code: string }).code, 'E_NOT_FOUND')
  })

  it('works with a minimal fetch replacement (status and json() only)', async () => {
    let current = 'a'
    const fetch = async (input: string, init: RequestInit = {}) => {
      const auth = new Headers(init.headers).get('authorization')
      const answer = (status: number, body: unknown) => ({ status, json: async () => body }) as unknown as Response
      if (input.endsWith('/api/auth')) return answer(200, { data: current })
      if (input.endsWith('/api/reauth')) return answer(200, { data: (current = 'b') })
      if (auth === 'Bearer b') return answer(200, { data: 'me' })
      return answer(401, { message: 'Token invalid.', code: 'E_TOKEN_INVALID' })
    }
    const client = createClient({ baseUrl: BASE, fetch, locks: null, broadcastChannel: null })
    await client.auth.login('ada@example.com', 'right')
    assert.deepEqual(await client.get('/api/me'), { data: 'me' })
    assert.equal(await client.auth.token(), 'b')
  })

  it('storages: keyed like localStorage (webStorage), or holding the token alone (a one-parameter set)', async () => {
    const server = fakeServer()
    const items = new Map<string, string>()
    const local = { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) }
    const keyed = createClient({ baseUrl: BASE, fetch: server.fetch, storage: webStorage(local), storageKey: 'my.token', locks: null, broadcastChannel: null })
    const token = await keyed.auth.login('ada@example.com', 'right')
    assert.deepEqual([...items], [['my.token', token]])
    await keyed.auth.logout()
    assert.equal(items.size, 0)

    let held: string | null = null
    const single = { get: () => held, set: (value: string) => void (held = value), remove: () => void (held = null) }
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, storage: single, locks: null, broadcastChannel: null })
    const second = await client.auth.login('ada@example.com', 'right')
    assert.equal(held, second)
    server.expire()
    await client.get('/api/me')
    assert.notEqual(held, second)
    await client.auth.logout()
    assert.equal(held, null)
  })

  it('a network failure is E_NETWORK with status 0, and leaves the token', async () => {
    const client = createClient({ baseUrl: BASE, fetch: () => Promise.reject(new Error('offline')), locks: null, broadcastChannel: null })
    const error = (await client.get('/api/me').catch((e: unknown) => e)) as TrowelError
    assert.equal(error.status, 0)
    assert.equal(error.code, 'E_NETWORK')
  })

  it('logout ends the token on the server and forgets it; an expired one is revoked by value', async () => {
    const server = fakeServer()
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, locks: null, broadcastChannel: null })
    await client.auth.login('ada@example.com', 'right')
    await client.auth.logout()
    assert.equal(server.calls.at(-1)?.path, '/api/logout')
    assert.equal(await client.auth.token(), null)
    await client.auth.login('ada@example.com', 'right')
    server.expire()
    await client.auth.logout()
    assert.deepEqual(server.calls.slice(-1).map((c) => [c.path, c.body]), [['/api/revoke', { token: 't2' }]])
    assert.equal(await client.auth.token(), null)
  })

  it('sends e-mail codes and social ID tokens to their routes under authRoute', async () => {
    const seen: [string, unknown][] = []
    const fetch = async (input: string, init: RequestInit = {}) => {
      seen.push([new URL(input).pathname, JSON.parse(String(init.body))])
      const status = input.endsWith('/email') ? 202 : 200
      return new Response(JSON.stringify(status === 202 ? { message: 'sent' } : { data: 'tok' }), { status, headers: { 'content-type': 'application/json' } })
    }
    const client = createClient({ baseUrl: `${BASE}/`, authRoute: '/v1/auth', fetch, locks: null, broadcastChannel: null })
    await client.auth.emailStart('ada@example.com')
    assert.equal(await client.auth.emailCode('ada@example.com', '123456'), 'tok')
    assert.equal(await client.auth.social('google', 'id.token', { nonce: 'n1' }), 'tok')
    assert.deepEqual(seen, [
      ['/v1/auth/email', { email: 'ada@example.com' }],
      ['/v1/auth/email/verify', { email: 'ada@example.com', code: '123456' }],
      ['/v1/auth/social/google', { id_token: 'id.token', nonce: 'n1' }],
    ])
  })

  it('refuses full URLs (the token goes only to the app) and adds query strings', async () => {
    const server = fakeServer()
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, locks: null, broadcastChannel: null })
    await assert.rejects(client.get('https://evil.example/steal'), TypeError)
    await assert.rejects(client.get('//evil.example/steal'), TypeError)
    await client.get('/api/nothing', { query: { page: 2, q: 'a b', skip: undefined } }).catch(() => undefined)
    assert.equal(server.calls.at(-1)?.path, '/api/nothing')
  })
})
