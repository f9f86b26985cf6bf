/**
 * @module auth/two-factor/challenge-forms
 * What the generated TwoFactorChallengeController does:
 * - `GET /two-factor-challenge`: the second step's form (a TOTP code or a recovery code, "Trust
 *   this device for 30 days", and "Use a passkey" when the user has one). It answers the session's
 *   pending login (a correct password waiting, see pending-login), or, for a logged-in user whose
 *   login has no second factor yet, a step-up that `mfa` sent there. Neither: 302 /login.
 * - `POST /two-factor-challenge` (`code` or `recovery_code`, `trust`): a right answer finishes the
 *   pending login through the login flow (web guard login, new session id, "remember me", `next`,
 *   `auth:login_succeeded` with the first step's method) with amr `['pwd', 'otp']` (an e-mailed
 *   link or code: `['email', 'otp']`), or adds `otp` to a logged-in
 *   user's amr and goes back to the page `mfa` stopped. A wrong one: 302 back with an error and
 *   `auth:two_factor_failed`. Every answer takes a slot of the `two_factor` budget of the pending
 *   login and one of the user (so starting a new login does not start a new budget); a browser
 *   that has logged into the account before (`trowel_device`) has its own per-user slot.
 * - `POST /account/two-factor/forget-devices`: every browser the user trusted asks again.
 * With the `passkeys` feature on and `two_factor` off, the page serves the step-up with a passkey
 * only, and a posted code is refused (422 / 302 back with the error).
 */
import type { HttpContext } from '../../http/context.js'
import { TooManyRequestsError, UnauthorizedError, ValidationError } from '../../http/errors.js'
import { sameSitePath } from '../../http/response.js'
import { eventBase } from '../events.js'
import { AUTH_MESSAGES } from '../messages.js'
import type { AuthUser } from '../types.js'
import { knownDeviceOf, rotateCurrentLogin } from '../guards/web/guard.js'
import { finishWebSecondStep } from '../login/flow.js'
import { MFA_INTENDED } from '../middleware/mfa-middleware.js'
import { ModelUserProvider } from '../user-providers/model-user-provider.js'
import { hasSecondFactor, markSecondFactor, secondFactorRecent, sessionAmr, setSessionAmr } from './amr.js'
import { passwordFingerprint, type PendingLogin } from './pending-login.js'
import { TRUST_COOKIE } from './trusted-devices.js'
import { FAILURE_MESSAGES } from './failure-watch.js'

export const CHALLENGE_MESSAGES = {
  required: 'Enter the code from your authenticator app, or one of your recovery codes.',
  invalid: 'The code is invalid or has already been used.',
  expired: 'Your login has expired. Please log in again.',
  forgotten: 'Every device you trusted will ask for a code at its next login.',
  passkeyOnly: 'Codes are not accepted here: use a passkey.',
} as const

/** The amr of a password login finished with a TOTP or recovery code. */
export const SECOND_STEP_AMR: readonly string[] = ['pwd', 'otp']

const TRUE_VALUES = ['1', 'on', 'true', 'yes']

type Subject =
  | { kind: 'pending'; login: PendingLogin; user: AuthUser }
  | { kind: 'step_up'; user: AuthUser }
  | { kind: 'done' }
  | { kind: 'expired' }
  | { kind: 'none' }

function services(ctx: HttpContext) {
  return ctx.app.make('auth.two_factor_challenge')
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : ''
}

/** Whom the challenge is for: the session's pending login, else a logged-in user stepping up. */
async function subjectOf(ctx: HttpContext): Promise<Subject> {
  const found = services(ctx).pending.current(ctx)
  if (found.state === 'expired') return { kind: 'expired' }
  if (found.state === 'pending') {
    const model = ctx.auth.manager.resolved.modelFor(found.login.guard)
    const user = model ? await new ModelUserProvider(model).findById(found.login.userId) : null
    if (!user) {
      services(ctx).pending.forget(ctx)
      return { kind: 'none' }
    }
    // The password has changed (a reset, a change) since it was typed: that login is over.
    if (passwordFingerprint(ctx, found.login.guard, user) !== found.login.password) {
      services(ctx).pending.forget(ctx)
      return { kind: 'expired' }
    }
    return { kind: 'pending', login: found.login, user }
  }
  if (!(await ctx.auth.check())) return { kind: 'none' }
  // `mfa.recent` sends a login whose factor is old (or came from a trusted-device mark) here too.
  if (hasSecondFactor(sessionAmr(ctx)) && secondFactorRecent(ctx, ctx.auth.manager.resolved.passwordTimeout)) return { kind: 'done' }
  return { kind: 'step_up', user: ctx.auth.user()! }
}

/** Where a finished step-up goes: the page `mfa` stopped, else /home. */
function intended(ctx: HttpContext): string {
  const target = sameSitePath(ctx.session.get<unknown>(MFA_INTENDED))
  ctx.session.forget(MFA_INTENDED)
  return target ?? '/home'
}

/** Whether the user can answer with a TOTP or recovery code: the `two_factor` feature on and TOTP confirmed. */
async function totpOn(ctx: HttpContext, userId: unknown): Promise<boolean> {
  return ctx.auth.manager.resolved.features.has('two_factor') && (await ctx.app.make('auth.two_factor').isEnabled(userId))
}

/** How many passkeys the user has, when the `passkeys` feature is on (its table then exists). */
async function passkeyCount(ctx: HttpContext, userId: unknown): Promise<number> {
  const manager = ctx.auth.manager
  if (!manager.resolved.features.has('passkeys')) return 0
  const row = await manager.db()('passkeys').where('user_id', userId as string | number).count({ n: '*' }).first()
  return Number(row?.n ?? 0)
}

/** Leaves for /login: JSON gets 401, a page a 302 (with the message for an expired login). */
function toLogin(ctx: HttpContext, expired: boolean): unknown {
  if (ctx.request.wantsJson() || !ctx.hasSession) throw new UnauthorizedError(expired ? CHALLENGE_MESSAGES.expired : undefined)
  if (expired) ctx.session.flash('error', CHALLENGE_MESSAGES.expired)
  return ctx.response.redirect('/login')
}

/**
 * One slot of the `two_factor` budget for each key; over any of them: 429 (JSON) or a 302 back to
 * the form with the "too many attempts" message. Null when within the budget.
 */
async function spend(ctx: HttpContext, user: AuthUser, keys: string[]): Promise<unknown> {
  const budget = ctx.auth.manager.budgets.two_factor
  const waits = await Promise.all(keys.map((key) => budget.take(key)))
  const wait = Math.max(...waits.map((w) => w ?? 0))
  if (waits.every((w) => w === null)) return null
  const error = new TooManyRequestsError(wait)
  ctx.app.log.warn('auth.two_factor_throttled', { user_id: user.getKey(), ip: ctx.request.ip(), request_id: ctx.request.id, retry_after: error.retryAfter })
  ctx.auth.manager.events.emit('auth:throttled', { ...eventBase(ctx, ctx.auth.guardName, user), retryAfter: error.retryAfter })
  if (ctx.request.wantsJson() || !ctx.hasSession) throw error
  ctx.session.flash('error', AUTH_MESSAGES.throttled(error.retryAfter))
  return ctx.response.redirect('/two-factor-challenge')
}

/**
 * The budget keys of an answer: the pending login's, and the user's. A browser holding a valid
 * `trowel_device` cookie for that account (it has logged into it before, and the cookie was not
 * revoked by "This wasn't me" or a password reset since) has a per-user key of its
 * own, so wrong answers from elsewhere (someone who knows the password) never throttle the owner's
 * known devices.
 */
export async function twoFactorBudgetKeys(ctx: HttpContext, userId: unknown, scope?: string): Promise<string[]> {
  const budget = ctx.auth.manager.budgets.two_factor
  const device = await knownDeviceOf(ctx, ctx.auth.manager.deviceRevocations, userId)
  const keys = [device === null ? budget.key('user', String(userId)) : budget.key('user', String(userId), 'device', device)]
  if (scope) keys.unshift(budget.key(scope))
  return keys
}

/**
 * Checks a TOTP code (`code`) or a recovery code (`recovery_code`) of `user`: true when right
 * (and now used up). A wrong one is counted (see failure-watch) and emits
 * `auth:two_factor_failed` (`repeated: true` on the 5th within an hour). Used by the page and the
 * API, after `refuseStopped`.
 */
export async function answerSecondStep(ctx: HttpContext, user: AuthUser, guard: string, code: string, recovery: string): Promise<boolean> {
  const twoFactor = ctx.app.make('auth.two_factor')
  const method = code !== '' ? 'totp' : 'recovery_code'
  const ok = method === 'totp' ? await twoFactor.verifyCode(user.getKey(), code) : await twoFactor.useRecoveryCode(user.getKey(), recovery)
  if (!ok) {
    // Counted per account: the 5th in an hour sends a notice, the 20th in a day stops answers.
    const { notify } = await services(ctx).watch.recordFailure(ctx, user)
    ctx.app.log.info('auth.two_factor_failed', { user_id: user.getKey(), method, ip: ctx.request.ip(), request_id: ctx.request.id })
    ctx.auth.manager.events.emit('auth:two_factor_failed', { ...eventBase(ctx, guard, user), method, ...(notify ? { repeated: true } : {}) })
  }
  return ok
}

/**
 * After 20 wrong answers in a day (until the password is reset) nobody answers for this account:
 * 429 `E_TOO_MANY_REQUESTS` (JSON, the API) or a 302 back to the form with the message.
 * Null when answers are allowed.
 */
export async function refuseStopped(ctx: HttpContext, user: AuthUser): Promise<unknown> {
  if (!(await services(ctx).watch.stopped(ctx, user))) return null
  const error = new TooManyRequestsError(3600, FAILURE_MESSAGES.stopped)
  if (ctx.request.wantsJson() || !ctx.hasSession) throw error
  ctx.session.flash('error', FAILURE_MESSAGES.stopped)
  return ctx.response.redirect('/two-factor-challenge')
}

export const TwoFactorChallengeForms = {
  /** GET /two-factor-challenge */
  async show(ctx: HttpContext): Promise<unknown> {
    const subject = await subjectOf(ctx)
    if (subject.kind === 'expired' || subject.kind === 'none') return toLogin(ctx, subject.kind === 'expired')
    if (subject.kind === 'done') return ctx.response.redirect(intended(ctx))
    const userId = subject.user.getKey()
    const totp = await totpOn(ctx, userId)
    const passkeys = (await passkeyCount(ctx, userId)) > 0
    // A logged-in user with nothing to answer with enrols instead.
    if (!totp && !passkeys) return ctx.response.redirect(ctx.auth.manager.resolved.features.has('two_factor') ? '/account/two-factor' : '/account/passkeys')
    ctx.response.header('Cache-Control', 'no-store')
    return ctx.view.render('auth/two_factor_challenge', { totp, passkeys, step_up: subject.kind === 'step_up' })
  },

  /** POST /two-factor-challenge */
  async store(ctx: HttpContext): Promise<unknown> {
    const { request } = ctx
    const subject = await subjectOf(ctx)
    if (subject.kind === 'expired' || subject.kind === 'none') return toLogin(ctx, subject.kind === 'expired')
    if (subject.kind === 'done') return request.wantsJson() ? { redirect: intended(ctx) } : ctx.response.redirect(intended(ctx))
    const code = text(request.post('code'))
    const recovery = text(request.post('recovery_code'))
    const field = code !== '' ? 'code' : 'recovery_code'
    if (code === '' && recovery === '') throw new ValidationError({ code: [CHALLENGE_MESSAGES.required] }, undefined, { back: '/two-factor-challenge' })
    // Without the `two_factor` feature only a passkey answers (the page offers nothing else).
    if (!ctx.auth.manager.resolved.features.has('two_factor')) throw new ValidationError({ [field]: [CHALLENGE_MESSAGES.passkeyOnly] }, undefined, { back: '/two-factor-challenge' })
    const { user } = subject
    const userId = user.getKey()
    const stopped = await refuseStopped(ctx, user)
    if (stopped) return stopped
    const keys = await twoFactorBudgetKeys(ctx, userId, subject.kind === 'pending' ? `pending:${subject.login.id}` : undefined)
    const throttled = await spend(ctx, user, keys)
    if (throttled) return throttled
    const guardName = subject.kind === 'pending' ? subject.login.guard : ctx.auth.guardName
    if (!(await answerSecondStep(ctx, user, guardName, code, recovery))) {
      throw new ValidationError({ [field]: [CHALLENGE_MESSAGES.invalid] }, undefined, { back: '/two-factor-challenge' })
    }
    const manager = ctx.auth.manager
    await manager.budgets.two_factor.clear(keys[keys.length - 1]!)
    const trust = TRUE_VALUES.includes(text(request.post('trust')))
    let target: string
    if (subject.kind === 'pending') {
      // The login flow finishes the pending login: its method's amr plus `otp`, "remember me", `next`.
      target = await finishWebSecondStep(ctx, subject.login, user)
    } else {
      // A step-up: the same login, now with a second factor, under a new session id and new
      // login and remember-me tokens (which carry the raised amr).
      setSessionAmr(ctx, [...new Set([...sessionAmr(ctx), 'otp'])])
      await rotateCurrentLogin(ctx)
      ctx.session.regenerate()
      markSecondFactor(ctx)
      target = intended(ctx)
    }
    if (trust) await services(ctx).trusted.trust(ctx, userId)
    if (request.wantsJson()) return { redirect: target }
    return ctx.response.redirect(target)
  },

  /** POST /account/two-factor/forget-devices (behind `auth`) */
  async forgetDevices(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const count = await services(ctx).trusted.forgetAll(user.getKey())
    ctx.response.clearCookie(TRUST_COOKIE)
    ctx.app.log.info('auth.two_factor_devices_forgotten', { user_id: user.getKey(), count, request_id: ctx.request.id })
    ctx.session.flash('success', CHALLENGE_MESSAGES.forgotten)
    return ctx.response.redirect('/account/two-factor')
  },
}
