/**
 * The attempt budgets of the CredentialVerifier, counted with a fake hasher (its `calls` are the
 * password checks that ran): a slot is taken before any hashing, so concurrency cannot get more
 * than the budget through; the `login` (e-mail + client), `ip` (client, IPv6 per /64) and
 * `account` (across all clients) budgets; the known-device exemption; one budget for every
 * spelling of an address; oversized input; a store that cannot be reached.
 */
import { beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { Application } from '../foundation/application.js'
import { CookieJar } from '../http/cookie-jar.js'
import { Logger } from '../support/logger.js'
import { ValidationError } from '../http/errors.js'
import { fakeContext } from '../testing/fake-context.js'
import { FakeHasher } from '../testing/fake-hasher.js'
import { FakeUserProvider, type FakeUser } from '../testing/fake-user-provider.js'
import { BudgetExceededError, CredentialVerifier, type VerifierBudgets } from './credential-verifier.js'
import { Budget } from './throttle/budget.js'
import { MemoryThrottleStore } from './throttle/memory-throttle-store.js'
import type { ThrottleStore } from './throttle/throttle-store.js'
import { normalizeEmail } from './email.js'
import { WebGuard, DEVICE_COOKIE } from './guards/web/guard.js'
import type { LoginTokenRepository } from './guards/web/login-token-repository.js'
import { FakeLoginTokens } from '../testing/fake-login-tokens.js'

const RIGHT = 'the right password'
const KEY = 'k'.repeat(40)

/** A fake hasher whose checks take a while, so that concurrent attempts really overlap. */
class SlowHasher extends FakeHasher {
  override async verify(hash: string, password: string): Promise<boolean> {
    this.calls++
    await sleep(5)
    return hash === `plain:${password}`
  }
  override async dummyVerify(): Promise<false> {
    this.calls++
    await sleep(5)
    return false
  }
}

/** FakeUserProvider finding accounts the way Authenticates does: by the normalised address. */
class Users extends FakeUserProvider {
  override add(id: number, email: string, password: string | null = null): FakeUser {
    const user = super.add(id, email, password)
    user.email = normalizeEmail(email)
    return user
  }
  override async findForCredentials(identifier: string): Promise<FakeUser | null> {
    this.lookups.byCredentials++
    const wanted = normalizeEmail(identifier)
    return [...this.users.values()].find((u) => u.email === wanted) ?? null
  }
}

function budgetsOn(store: ThrottleStore, limits: Partial<Record<keyof VerifierBudgets, { attempts: number; minutes: number }>> = {}): VerifierBudgets {
  return {
    login: new Budget('login', store, limits.login ?? { attempts: 5, minutes: 1 }),
    ip: new Budget('ip', store, limits.ip ?? { attempts: 100, minutes: 60 }),
    account: new Budget('account', store, limits.account ?? { attempts: 100, minutes: 60 }),
  }
}

let store: MemoryThrottleStore
let hasher: SlowHasher
let users: Users
let verifier: CredentialVerifier

function setup(limits: Parameters<typeof budgetsOn>[1] = {}): void {
  store = new MemoryThrottleStore()
  hasher = new SlowHasher()
  users = new Users()
  users.add(1, 'alice@example.test', `plain:${RIGHT}`)
  users.add(2, 'jos\u00e9@example.test', `plain:${RIGHT}`)
  verifier = new CredentialVerifier(hasher, budgetsOn(store, limits), new Logger({ sink: () => {} }))
}

/** The outcome of one attempt: 'ok', 'wrong', or the budget that refused it. */
async function attempt(identifier: unknown, password: unknown, ip: string, deviceFor?: (id: unknown) => string | null): Promise<string> {
  try {
    const result = await verifier.verify(users, identifier, password, { ip, deviceFor })
    return result.ok ? 'ok' : result.tooLong ? `too long ${result.tooLong}` : 'wrong'
  } catch (error) {
    if (error instanceof BudgetExceededError) return `refused ${error.budget}`
    throw error
  }
}

const tally = (outcomes: string[]) => outcomes.reduce<Record<string, number>>((t, o) => ({ ...t, [o]: (t[o] ?? 0) + 1 }), {})

describe('CredentialVerifier budgets: a slot before any hashing', () => {
  beforeEach(() => setup())

  it('50 concurrent wrong passwords for one e-mail and IP: at most 5 reach the hasher', async () => {
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt('alice@example.test', `wrong ${i}`, '203.0.113.5')))
    assert.equal(hasher.calls, 5)
    assert.deepEqual(tally(outcomes), { wrong: 5, 'refused login': 45 })
    assert.equal(await attempt('alice@example.test', RIGHT, '203.0.113.5'), 'refused login', 'even the right password waits out the window')
    assert.equal(hasher.calls, 5)
  })

  it('the same for an unknown address (no account to look up, the same login budget)', async () => {
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt('nobody@example.test', `wrong ${i}`, '203.0.113.6')))
    assert.equal(hasher.calls, 5)
    assert.deepEqual(tally(outcomes), { wrong: 5, 'refused login': 45 })
  })

  it('a successful login gives the login budget back, but not the ip or account budgets', async () => {
    setup({ ip: { attempts: 11, minutes: 60 }, account: { attempts: 12, minutes: 60 } })
    for (let i = 0; i < 4; i++) assert.equal(await attempt('alice@example.test', `wrong ${i}`, '198.51.100.1'), 'wrong')
    assert.equal(await attempt('alice@example.test', RIGHT, '198.51.100.1'), 'ok')
    for (let i = 0; i < 5; i++) assert.equal(await attempt('alice@example.test', `wrong again ${i}`, '198.51.100.1'), 'wrong', `after the login, ${i}`)
    assert.equal(await attempt('alice@example.test', 'one more', '198.51.100.1'), 'refused login')
    // 11 ip slots taken so far, and 10 account slots (the refused attempt took an ip slot only).
    assert.equal(await attempt('bob@example.test', 'x', '198.51.100.1'), 'refused ip')
    assert.equal(await attempt('alice@example.test', RIGHT, '198.51.100.2'), 'ok', '11th account slot')
    assert.equal(await attempt('alice@example.test', RIGHT, '198.51.100.3'), 'ok', '12th account slot')
    assert.equal(await attempt('alice@example.test', RIGHT, '198.51.100.4'), 'refused account')
  })

  it('ip: 100 attempts an hour per client across all accounts (credential stuffing)', async () => {
    for (let i = 0; i < 101; i++) users.add(100 + i, `user${i}@example.test`, `plain:${RIGHT}`)
    const outcomes: string[] = []
    for (let i = 0; i < 101; i++) outcomes.push(await attempt(`user${i}@example.test`, 'password1', '192.0.2.77'))
    assert.deepEqual(tally(outcomes), { wrong: 100, 'refused ip': 1 })
    assert.equal(outcomes.at(-1), 'refused ip')
    assert.equal(hasher.calls, 100)
    assert.equal(await attempt('user100@example.test', RIGHT, '192.0.2.78'), 'ok', 'another client keeps its budget')
  })

  it('ip: IPv6 clients are counted per /64; IPv4-mapped addresses as IPv4', async () => {
    const outcomes: string[] = []
    for (let i = 1; i <= 6; i++) outcomes.push(await attempt('alice@example.test', `wrong ${i}`, `2001:db8:1:2::${i.toString(16)}`))
    assert.deepEqual(tally(outcomes), { wrong: 5, 'refused login': 1 }, 'six addresses of one /64 share one login budget')
    assert.equal(await attempt('alice@example.test', `wrong`, '2001:db8:1:2:ffff:ffff:ffff:fffe'), 'refused login')
    assert.equal(await attempt('alice@example.test', RIGHT, '2001:db8:1:3::1'), 'ok', 'the next /64 is another client')

    for (let i = 0; i < 5; i++) await attempt('alice@example.test', `wrong ${i}`, '::ffff:198.51.100.9')
    assert.equal(await attempt('alice@example.test', RIGHT, '198.51.100.9'), 'refused login')

    setup()
    const many: string[] = []
    for (let i = 0; i < 101; i++) many.push(await attempt(`u${i}@example.test`, 'x', `2001:db8:aa:bb:${i.toString(16)}::1`))
    assert.deepEqual(tally(many), { wrong: 100, 'refused ip': 1 }, '101 addresses of one /64 share one ip budget')
  })

  it('account: 100 attempts an hour on one account across all clients; the one that locks it says so', async () => {
    const outcomes: string[] = []
    for (let i = 0; i < 100; i++) outcomes.push(await attempt('alice@example.test', `guess ${i}`, `10.1.${i >> 8}.${i & 255}`))
    assert.deepEqual(tally(outcomes), { wrong: 100 })
    const locking = await verifier.verify(users, 'alice@example.test', RIGHT, '10.2.0.1').then(
      () => null,
      (error: unknown) => error,
    )
    assert.ok(locking instanceof BudgetExceededError)
    assert.equal(locking.budget, 'account')
    assert.equal(locking.locksAccount, true)
    assert.equal((locking.account as FakeUser).id, 1)
    assert.ok(locking.retryAfter > 3500 && locking.retryAfter <= 3600, String(locking.retryAfter))
    const later = await verifier.verify(users, 'alice@example.test', RIGHT, '10.2.0.2').catch((e: unknown) => e)
    assert.ok(later instanceof BudgetExceededError && later.budget === 'account' && !later.locksAccount, 'only the first refusal locks')
    assert.equal(hasher.calls, 100)
    assert.equal(await attempt('jos\u00e9@example.test', RIGHT, '10.2.0.3'), 'ok', 'other accounts are not affected')
  })

  it('account: of concurrent attempts past the budget exactly one is the locking one', async () => {
    setup({ account: { attempts: 10, minutes: 60 } })
    const errors = await Promise.all(
      Array.from({ length: 30 }, (_, i) => verifier.verify(users, 'alice@example.test', `w${i}`, `10.3.0.${i}`).then(() => null, (e: unknown) => e)),
    )
    const refused = errors.filter((e): e is BudgetExceededError => e instanceof BudgetExceededError)
    assert.equal(refused.length, 20)
    assert.equal(refused.filter((e) => e.locksAccount).length, 1)
    assert.equal(hasher.calls, 10)
  })

  it('account: an attempt with a known device of that account is counted on the device, not the account', async () => {
    setup({ account: { attempts: 3, minutes: 60 } })
    const device = (id: unknown) => (String(id) === '1' ? 'device-A' : null)
    for (let i = 0; i < 3; i++) await attempt('alice@example.test', `guess ${i}`, `10.4.0.${i}`)
    assert.equal(await attempt('alice@example.test', RIGHT, '10.4.1.1'), 'refused account', 'locked for everyone else')
    assert.equal(await attempt('alice@example.test', RIGHT, '10.4.1.1', device), 'ok', 'the known device still logs in')
    // The device's own key has a budget of its own, not unlimited.
    for (let i = 0; i < 3; i++) await attempt('alice@example.test', `typo ${i}`, `10.4.2.${i}`, device)
    assert.equal(await attempt('alice@example.test', RIGHT, '10.4.3.1', device), 'refused account')
    // A device of another account does not help.
    const otherDevice = (id: unknown) => (String(id) === '2' ? 'device-B' : null)
    assert.equal(await attempt('alice@example.test', RIGHT, '10.4.4.1', otherDevice), 'refused account')
  })

  it('every spelling of an address shares one login budget (case, spaces, NFC/NFD)', async () => {
    const spellings = ['jos\u00e9@example.test', 'JOS\u00c9@EXAMPLE.TEST', ' jos\u00e9@example.test ', 'jose\u0301@example.test', 'JOSE\u0301@Example.Test', '\tJos\u00e9@example.test\n']
    const outcomes: string[] = []
    for (const [i, spelling] of spellings.entries()) outcomes.push(await attempt(spelling, `wrong ${i}`, '203.0.113.50'))
    assert.deepEqual(outcomes, ['wrong', 'wrong', 'wrong', 'wrong', 'wrong', 'refused login'])
    assert.equal(users.lookups.byCredentials, 5, 'each spelling reached the same account')
    assert.equal(hasher.calls, 5)
  })

  it('every spelling shares the account budget too', async () => {
    setup({ account: { attempts: 4, minutes: 60 } })
    const spellings = ['ALICE@example.test', ' alice@example.test ', 'Alice@Example.Test', 'alice@EXAMPLE.test']
    for (const [i, spelling] of spellings.entries()) assert.equal(await attempt(spelling, 'wrong', `10.5.0.${i}`), 'wrong')
    assert.equal(await attempt('alice@example.test', RIGHT, '10.5.1.1'), 'refused account')
  })
})

describe('CredentialVerifier: bounded input', () => {
  beforeEach(() => setup())

  it('an identifier over 320 bytes or a password over 4,096 bytes: refused with no state, no look-up, no hashing', async () => {
    const inputs: [unknown, unknown, string][] = [
      ['a'.repeat(310) + '@example.test', RIGHT, 'too long identifier'],
      ['\u00e9'.repeat(161) + '@x', RIGHT, 'too long identifier'], // 163 characters, 324 bytes
      ['alice@example.test', 'p'.repeat(4097), 'too long password'],
      ['alice@example.test', '\u00e9'.repeat(2049), 'too long password'], // 2,049 characters, 4,098 bytes
      ['alice@example.test', 'p'.repeat(1024 * 1024), 'too long password'],
    ]
    for (let round = 0; round < 20; round++) {
      for (const [identifier, password, expected] of inputs) assert.equal(await attempt(identifier, password, '192.0.2.9'), expected)
    }
    assert.equal(store.size, 0, 'no throttle state was created')
    assert.equal(users.lookups.byCredentials, 0)
    assert.equal(hasher.calls, 0)
  })

  it('exactly 320 and 4,096 bytes are ordinary input', async () => {
    assert.equal(await attempt('a'.repeat(307) + '@example.test', 'wrong', '192.0.2.10'), 'wrong')
    assert.equal(hasher.calls, 1)
    assert.equal(await attempt('alice@example.test', '\u00e9'.repeat(2048), '192.0.2.10'), 'wrong', '4,096 bytes: a wrong password')
  })

  it('a password of 1,025 to 4,096 characters is a wrong password: it takes a slot but is never hashed', async () => {
    const outcomes: string[] = []
    for (let i = 0; i < 6; i++) outcomes.push(await attempt('alice@example.test', 'p'.repeat(1025 + i * 600), '192.0.2.11'))
    assert.deepEqual(outcomes, ['wrong', 'wrong', 'wrong', 'wrong', 'wrong', 'refused login'])
    assert.equal(hasher.calls, 0)
    assert.equal(users.lookups.byCredentials, 0)
  })

  it('the guard answers oversized input with a 422 ValidationError naming the field', async () => {
    const app = new Application(tmpdir(), { log: new Logger({ sink: () => {} }) })
    app.bind('cookies', new CookieJar(KEY))
    const guard = (body: Record<string, string>) =>
      new WebGuard<FakeUser>('web', fakeContext(app, { method: 'POST', url: '/login', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), {
        provider: users,
        verifier,
        tokens: new FakeLoginTokens() as unknown as LoginTokenRepository,
        events: app.events,
      })
    const tooLongEmail = 'a'.repeat(400)
    const g1 = guard({ email: tooLongEmail, password: RIGHT })
    g1['ctx'].request.body = { email: tooLongEmail, password: RIGHT }
    await assert.rejects(g1.attempt(tooLongEmail, RIGHT), (e: unknown) => e instanceof ValidationError && e.status === 422 && Object.keys(e.errors)[0] === 'email')
    const g2 = guard({})
    g2['ctx'].request.body = { username: tooLongEmail, password: RIGHT }
    await assert.rejects(g2.attempt(tooLongEmail, RIGHT), (e: unknown) => e instanceof ValidationError && Object.keys(e.errors)[0] === 'username')
    await assert.rejects(guard({}).attempt('alice@example.test', 'p'.repeat(5000)), (e: unknown) => e instanceof ValidationError && Object.keys(e.errors)[0] === 'password')
    assert.equal(store.size, 0)
  })
})

describe('CredentialVerifier: a store that cannot be reached fails closed', () => {
  it('503 E_UNAVAILABLE, no hashing, never a wrong password', async () => {
    const broken: ThrottleStore = {
      hit: async () => Promise.reject(new Error('connect ECONNREFUSED')),
      get: async () => Promise.reject(new Error('connect ECONNREFUSED')),
      clear: async () => Promise.reject(new Error('connect ECONNREFUSED')),
    }
    const fake = new FakeHasher()
    const v = new CredentialVerifier(fake, budgetsOn(broken), new Logger({ sink: () => {} }))
    const u = new Users()
    u.add(1, 'alice@example.test', `plain:${RIGHT}`)
    for (const password of [RIGHT, 'wrong']) {
      await assert.rejects(v.verify(u, 'alice@example.test', password, '192.0.2.1'), (e: unknown) => (e as { code?: string; status?: number }).code === 'E_UNAVAILABLE' && (e as { status: number }).status === 503)
    }
    assert.equal(fake.calls, 0)
  })
})


describe('WebGuard: the trowel_device cookie and auth:account_locked', () => {
  let app: Application
  let events: [string, any][]

  beforeEach(() => {
    setup({ account: { attempts: 3, minutes: 60 } })
    app = new Application(tmpdir(), { log: new Logger({ sink: () => {} }) })
    app.bind('cookies', new CookieJar(KEY))
    events = []
    for (const name of ['auth:login_succeeded', 'auth:login_failed', 'auth:throttled', 'auth:account_locked'] as const) {
      app.events.on(name, (payload) => events.push([name, payload]))
    }
  })

  function guard(ip: string, cookie?: string): WebGuard<FakeUser> {
    const headers: Record<string, string> = cookie ? { cookie } : {}
    return new WebGuard<FakeUser>('web', fakeContext(app, { method: 'POST', url: '/login', headers, remoteAddress: ip }), {
      provider: users,
      verifier,
      tokens: new FakeLoginTokens() as unknown as LoginTokenRepository,
      events: app.events,
    })
  }

  /** The Set-Cookie line of the device cookie a guard's response carries. */
  const deviceSetCookie = (g: WebGuard<FakeUser>) => g['ctx'].response.cookies.get(DEVICE_COOKIE)

  it('a login sets trowel_device: signed, HttpOnly, SameSite=Lax, one year; no database needed to check it', async () => {
    const g = guard('198.51.100.20')
    assert.equal((await g.attempt('alice@example.test', RIGHT))?.id, 1)
    const line = deviceSetCookie(g)!
    assert.ok(line, 'no trowel_device cookie')
    assert.match(line, /HttpOnly/i)
    assert.match(line, /SameSite=Lax/i)
    assert.match(line, /Max-Age=31536000/i)
    const packed = decodeURIComponent(line.slice(DEVICE_COOKIE.length + 1).split(';')[0]!)
    const value = app.make<CookieJar>('cookies').unpack(DEVICE_COOKIE, packed)!
    assert.match(value, /^[A-Za-z0-9_-]{22}\.MQ\.[0-9]{1,12}$/, 'a random device id, the account (base64url of "1") and the second it was issued')
    const failed = guard('198.51.100.21')
    assert.equal(await failed.attempt('alice@example.test', 'wrong'), null)
    assert.equal(deviceSetCookie(failed), undefined, 'no device cookie without a login')
    // Any login marks its browser (the one that registered is its owner's): a later new-device
    // notice is then only for browsers that never logged into the account.
    const byId = guard('198.51.100.22')
    await byId.attemptById(1)
    assert.ok(deviceSetCookie(byId), 'a login by id (registration) marks the device too')
  })

  it('a flood that locks the account emits auth:account_locked once and never locks out the known device', async () => {
    const first = guard('198.51.100.30')
    await first.attempt('alice@example.test', RIGHT)
    const setCookie = deviceSetCookie(first)!
    const deviceCookie = setCookie.split(';')[0]!

    // The login above took one of the account's 3 slots; two guesses take the rest.
    for (let i = 0; i < 2; i++) assert.equal(await guard(`10.6.0.${i}`).attempt('alice@example.test', `guess ${i}`), null)
    for (let i = 0; i < 3; i++) await assert.rejects(guard(`10.6.1.${i}`).attempt('alice@example.test', RIGHT), BudgetExceededError)
    const locked = events.filter(([name]) => name === 'auth:account_locked')
    assert.equal(locked.length, 1)
    assert.equal(locked[0]![1].user.id, 1)
    assert.ok(locked[0]![1].retryAfter > 0)
    assert.equal(locked[0]![1].ip, '10.6.1.0')
    assert.equal(events.filter(([name]) => name === 'auth:throttled').length, 3)

    const known = guard('10.7.0.1', deviceCookie)
    assert.equal((await known.attempt('alice@example.test', RIGHT))?.id, 1, 'the device that logged in before still can')
    const forged = guard('10.7.0.2', `${DEVICE_COOKIE}=${encodeURIComponent('s.' + Buffer.from('forged.MQ').toString('base64url') + '.AAAA')}`)
    await assert.rejects(forged.attempt('alice@example.test', RIGHT), BudgetExceededError, 'an unsigned device cookie counts for nothing')
  })

  it('the device id is kept across logins to another account, and the cookie then names that account', async () => {
    const first = guard('198.51.100.40')
    await first.attempt('alice@example.test', RIGHT)
    const cookie = deviceSetCookie(first)!.split(';')[0]!
    const second = guard('198.51.100.40', cookie)
    await second.attempt('jos\u00e9@example.test', RIGHT)
    const unpack = (line: string) => app.make<CookieJar>('cookies').unpack(DEVICE_COOKIE, decodeURIComponent(line.slice(DEVICE_COOKIE.length + 1).split(';')[0]!))!
    const before = unpack(deviceSetCookie(first)!)
    const after = unpack(deviceSetCookie(second)!)
    assert.equal(after.split('.')[0], before.split('.')[0])
    assert.equal(Buffer.from(after.split('.')[1]!, 'base64url').toString(), '2')
  })
})
