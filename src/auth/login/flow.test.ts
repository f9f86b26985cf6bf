/**
 * The login flow: each way in emits exactly one `auth:login_succeeded` with its method, logs in
 * through the guard, records its amr, and is challenged only when its method is; and no file of
 * src/ outside the flow emits that event or finishes a login itself.
 */
import { beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Application } from '../../foundation/application.js'
import { Logger } from '../../support/logger.js'
import { Session } from '../../session/session.js'
import { fakeContext } from '../../testing/fake-context.js'
import type { HttpContext } from '../../http/context.js'
import type { AuthUser } from '../types.js'
import { SecondFactorRequiredError } from './errors.js'
import { AMR_SESSION_KEY, PENDING_LOGIN_KEY, SECOND_FACTOR_AT } from './amr.js'
import { PASSWORD_CONFIRMED_AT } from '../middleware/password-confirm-middleware.js'
import { finishGuardLogin, finishRestoredLogin, onLoginCompleted, pendingAttempt, type FlowGuard } from './flow.js'
import type { LoginAttempt, LoginMethod } from './types.js'

const user: AuthUser = { getKey: () => 7 }

/** A guard that records its logins, like the web guard sets its device cookie on each. */
class RecordingGuard implements FlowGuard {
  readonly logins: { user: AuthUser; amr?: readonly string[] }[] = []
  readonly remembered: (readonly string[] | undefined)[] = []
  token: string | null = null
  constructor(
    readonly driverName: string,
    private readonly ctx: HttpContext,
    readonly name = driverName === 'session' ? 'web' : 'jwt',
  ) {}
  async login(u: AuthUser, amr?: readonly string[]): Promise<void> {
    this.logins.push({ user: u, amr })
    if (this.driverName === 'session') this.ctx.response.cookie('trowel_device', 'd.Nw.1')
    else this.token = `token-${this.logins.length}`
  }
  knownDevice(): boolean | undefined {
    return this.driverName === 'session' ? false : undefined
  }
  async remember(amr?: readonly string[]): Promise<boolean> {
    this.remembered.push(amr)
    return true
  }
}

describe('the login flow', () => {
  let app: Application
  let events: Record<string, unknown>[]
  let challenged: string[]
  /** The second factor the fake challenge asks for: none, a pending login, or a trusted device. */
  let totp: 'off' | 'ask' | 'trusted'

  beforeEach(() => {
    app = new Application(tmpdir(), { log: new Logger({ sink: () => {} }) })
    events = []
    challenged = []
    totp = 'off'
    app.events.on('auth:login_succeeded', (e) => void events.push(e as unknown as Record<string, unknown>))
  })

  function webContext(): HttpContext {
    const ctx = fakeContext(app, { method: 'POST', url: '/login' })
    ctx.session = new Session('s1')
    return ctx
  }

  const challenge = async (ctx: HttpContext, _guard: string, _user: AuthUser): Promise<void> => {
    challenged.push(ctx.state.loginAttempt?.method ?? '?')
    if (totp === 'trusted') ctx.state.loginAmr = ['pwd', 'otp']
    if (totp === 'ask') {
      ctx.session.put(PENDING_LOGIN_KEY, { id: 'p', userId: 7, guard: 'web', remember: false, next: null, createdAt: Date.now(), password: null })
      throw new SecondFactorRequiredError(undefined, undefined, { page: '/second-step' })
    }
  }

  const methods: [LoginMethod, string[], boolean][] = [
    ['password', ['pwd'], true],
    ['social', ['social'], true],
    ['email_link', ['email'], true],
    ['email_code', ['email'], true],
    ['passkey', ['webauthn'], false],
    ['id', [], false],
  ]

  for (const [method, amr, isChallenged] of methods) {
    it(`web ${method}: one auth:login_succeeded with method ${method}, one guard login (the device cookie), amr ${JSON.stringify(amr)}`, async () => {
      const ctx = webContext()
      const guard = new RecordingGuard('session', ctx)
      const outcome = await finishGuardLogin(ctx, guard, { events: app.events, challenge }, { user, method, amr, next: '/somewhere' })
      assert.deepEqual(outcome, { status: 'logged_in', redirect: '/somewhere' })
      assert.equal(guard.logins.length, 1)
      assert.ok(ctx.response.cookies.has('trowel_device'), 'the device cookie')
      assert.equal(events.length, 1)
      assert.equal(events[0]!.method, method)
      assert.equal(events[0]!.guard, 'web')
      assert.deepEqual(ctx.session.get(AMR_SESSION_KEY), amr)
      assert.deepEqual(challenged, isChallenged ? [method] : [])
      // Only a typed password counts as a password confirmation; only a passkey as a factor just given.
      assert.equal(ctx.session.has(PASSWORD_CONFIRMED_AT), method === 'password')
      assert.equal(ctx.session.has(SECOND_FACTOR_AT), method === 'passkey')
      // The new-device notice is for proofs a stranger could make, not for the app's own login.
      assert.equal(events[0]!.knownDevice, method === 'id' ? undefined : false)
    })
  }

  for (const [method, amr, isChallenged] of methods.filter(([, , c]) => c)) {
    it(`web ${method} of a TOTP user: no login, no event, the pending login keeps method and amr`, async () => {
      assert.ok(isChallenged)
      totp = 'ask'
      const ctx = webContext()
      const guard = new RecordingGuard('session', ctx)
      const outcome = await finishGuardLogin(ctx, guard, { events: app.events, challenge }, { user, method, amr, remember: true, next: '/x' })
      assert.deepEqual(outcome, { status: 'challenge', redirect: '/second-step' })
      assert.equal(guard.logins.length, 0)
      assert.equal(events.length, 0)
      const pending = ctx.session.get<Record<string, unknown>>(PENDING_LOGIN_KEY)!
      assert.equal(pending.remember, true)
      assert.equal(pending.next, '/x')
      assert.deepEqual(pendingAttempt(pending as never), { method, amr })
    })
  }

  it('a `next` that is not a same-site path lands on /home', async () => {
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil', 'javascript:alert(1)']) {
      const ctx = webContext()
      const outcome = await finishGuardLogin(ctx, new RecordingGuard('session', ctx), { events: app.events, challenge }, { user, method: 'passkey', amr: ['webauthn'], next })
      assert.deepEqual(outcome, { status: 'logged_in', redirect: '/home' }, next)
    }
  })

  it('a trusted device skips the challenge: amr gains otp, but no factor counts as just given', async () => {
    totp = 'trusted'
    const ctx = webContext()
    await finishGuardLogin(ctx, new RecordingGuard('session', ctx), { events: app.events, challenge }, { user, method: 'email_link', amr: ['email'] })
    assert.deepEqual(ctx.session.get(AMR_SESSION_KEY), ['email', 'otp'])
    assert.equal(ctx.session.has(SECOND_FACTOR_AT), false)
  })

  it('"remember me" stores the login amr with the token; a restore emits method remember with that amr', async () => {
    const ctx = webContext()
    const guard = new RecordingGuard('session', ctx)
    await finishGuardLogin(ctx, guard, { events: app.events, challenge }, { user, method: 'password', amr: ['pwd'], remember: true })
    assert.deepEqual(guard.remembered, [['pwd']])
    const later = webContext()
    await finishRestoredLogin(later, 'web', app.events, user, ['pwd', 'otp'])
    assert.deepEqual(events.map((e) => e.method), ['password', 'remember'])
    assert.deepEqual(later.session.get(AMR_SESSION_KEY), ['pwd', 'otp'])
  })

  it('registration (event: false) logs in without auth:login_succeeded', async () => {
    const ctx = webContext()
    const guard = new RecordingGuard('session', ctx)
    await finishGuardLogin(ctx, guard, { events: app.events, challenge }, { user, method: 'id', amr: [] }, { event: false })
    assert.equal(guard.logins.length, 1)
    assert.equal(events.length, 0)
  })

  it('API: the token with the attempt amr, one event; a TOTP user gets the challenge thrown', async () => {
    const ctx = fakeContext(app, { method: 'POST', url: '/api/auth' })
    const guard = new RecordingGuard('jwt', ctx)
    const body = await finishGuardLogin(ctx, guard, { events: app.events, challenge }, { user, method: 'email_code', amr: ['email'] })
    assert.deepEqual(body, { data: 'token-1' })
    assert.deepEqual(guard.logins[0]!.amr, ['email'])
    assert.deepEqual(events.map((e) => [e.method, e.guard]), [['email_code', 'jwt']])
    const jwtChallenge = async (c: HttpContext): Promise<void> => {
      challenged.push(c.state.loginAttempt?.method ?? '?')
      throw new SecondFactorRequiredError('mfa-token')
    }
    await assert.rejects(finishGuardLogin(ctx, guard, { events: app.events, challenge: jwtChallenge }, { user, method: 'password', amr: ['pwd'] }), SecondFactorRequiredError)
    assert.equal(guard.logins.length, 1)
    assert.equal(ctx.state.loginAttempt, undefined, 'the attempt is not left behind')
  })

  it('onLoginCompleted hooks run after each completed web login, with the user and attempt', async () => {
    const seen: [unknown, string][] = []
    onLoginCompleted(app, (_ctx, u, attempt: LoginAttempt) => void seen.push([u.getKey(), attempt.method]))
    const ctx = webContext()
    await finishGuardLogin(ctx, new RecordingGuard('session', ctx), { events: app.events, challenge }, { user, method: 'passkey', amr: ['webauthn'] })
    totp = 'ask'
    const held = webContext()
    await finishGuardLogin(held, new RecordingGuard('session', held), { events: app.events, challenge }, { user, method: 'password', amr: ['pwd'] })
    assert.deepEqual(seen, [[7, 'passkey']], 'a login held for its second step is not completed')
  })
})

describe('no way in finishes a login outside the flow', () => {
  const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..')
  const files: string[] = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) files.push(path)
    }
  }
  walk(root)

  it('only src/auth/login/ emits auth:login_succeeded', () => {
    const emitters = files.filter((f) => /emit\(\s*'auth:login_succeeded'/.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f))
    assert.deepEqual(emitters, ['auth/login/flow.ts'])
  })

  it('no feature calls a guard login or a second-factor challenge directly', () => {
    const allowed = new Set(['auth/login/flow.ts', 'auth/auth.ts', 'auth/auth-manager.ts', 'auth/guards/base-guard.ts'])
    const offenders = files
      .filter((f) => !allowed.has(relative(root, f)))
      .filter((f) => /\b(?:auth|guard)\.login\(|resolve\([^)]*\)\.login\(|manager\.challenge\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f))
    assert.deepEqual(offenders, [])
  })
})
