/**
 * @module auth/login/flow
 * The one login flow: every way of proving who you are (a password, a passkey, a social account,
 * an e-mailed link or code, a remember-me cookie, the app's own `attemptById`, registration)
 * ends here, and nowhere else are a guard's `login` and `auth:login_succeeded` put together.
 *
 * A web login (`finishWebLogin`):
 * 1. the second-factor challenge, for `password`, `social`, `email_link` and `email_code` only: a
 *    user with a second factor is held back in the session (the pending login keeps the method,
 *    its amr, "remember me" and `next`) and sent to the page the challenge names (a JSON request:
 *    401 `E_MFA_REQUIRED`); a browser the user trusted goes on with `otp` added to the amr. `passkey` (a second factor already), `remember` (restores a
 *    login that had passed its challenge) and `id` (the app vouches) are never challenged;
 * 2. whether this browser had logged into the account before (read before the login, for the
 *    new-device notice: sent for `password`, `passkey`, `social` and `email_*`, never for `id`);
 * 3. the guard's login: the previous login of the browser revoked, a new login token, a new
 *    session id and CSRF token, the `trowel_device` cookie;
 * 4. the session's login state: the amr, the password confirmation (a typed password only), when
 *    a second factor was last given; any pending second step forgotten;
 * 5. "remember me" (with the `remember_me` feature), storing the login's amr with its token;
 * 6. `auth:login_succeeded` with `method` (and `knownDevice`, and the attempt's `details`);
 * 7. the `onLoginCompleted` hooks, in the order added.
 *
 * An API login (`finishApiLogin`) runs the same challenge (401 `E_MFA_REQUIRED` with an
 * `mfa_token` whose purpose keeps the method, so the second step issues `amr` `[first, 'otp']`),
 * then issues the token with the attempt's amr and emits `auth:login_succeeded`.
 *
 * Budgets are the method's own (each takes its slots before it compares a secret); the flow
 * starts after the proof.
 */
import type { HttpContext } from '../../http/context.js'
import { sameSitePath } from '../../http/response.js'
import type { Application } from '../../foundation/application.js'
import type { Emitter } from '../../events/emitter.js'
import type { AuthUser } from '../types.js'
import type { ChallengePurpose } from '../challenges/auth-challenges.js'
import { eventBase } from '../events.js'
import { answerJsonError } from '../../session/json-forms.js'
import { SecondFactorRequiredError } from './errors.js'
import { hasSecondFactor, markSecondFactor, PENDING_LOGIN_KEY, setSessionAmr } from './amr.js'
import { PASSWORD_CONFIRMED_AT } from '../middleware/password-confirm-middleware.js'
import type { HeldLogin, LoginAttempt, LoginChallenge, LoginMethod, TokenResponseBody, WebLoginOutcome } from './types.js'

/** The methods the second-factor challenge applies to. */
export const CHALLENGED_METHODS: ReadonlySet<LoginMethod> = new Set<LoginMethod>(['password', 'social', 'email_link', 'email_code'])
/** The methods whose login from an unknown browser sends the new-device notice. */
const NOTICED_METHODS: ReadonlySet<LoginMethod> = new Set<LoginMethod>(['password', 'passkey', 'social', 'email_link', 'email_code'])
const METHODS: ReadonlySet<string> = new Set<LoginMethod>(['password', 'passkey', 'social', 'email_link', 'email_code', 'remember', 'id'])

/** The amr of a password login. */
export const PASSWORD_AMR: readonly string[] = ['pwd']

/** What the flow needs of a guard (the web and JWT guards have it). */
export interface FlowGuard {
  readonly name: string
  readonly driverName: string
  login(user: AuthUser, amr?: readonly string[]): Promise<void>
  /** Whether this browser logged into the account before; undefined where there are no devices. */
  knownDevice(accountId: unknown): boolean | undefined | Promise<boolean | undefined>
  /** Web: starts "remember me" for the login just made (false when the feature is off). */
  remember?(amr?: readonly string[]): Promise<boolean>
  /** JWT: the token the login issued. */
  readonly token?: string | null
}

/** The manager's parts the flow uses (a guard has them in its dependencies). */
export interface FlowDeps {
  events: Emitter
  challenge?: LoginChallenge
}

export type LoginCompletedHook = (ctx: HttpContext, user: AuthUser, attempt: LoginAttempt) => void | Promise<void>

const hooks = new WeakMap<Application, LoginCompletedHook[]>()

/**
 * Runs `hook` after every completed web login of `app` (after `auth:login_succeeded`), with the
 * logged-in user. A hook that throws fails the request (the login stays made).
 */
export function onLoginCompleted(app: Application, hook: LoginCompletedHook): void {
  const list = hooks.get(app) ?? []
  list.push(hook)
  hooks.set(app, list)
}

/** `amr` with `factor` added once. */
export function withFactor(amr: readonly string[], factor: string): string[] {
  return amr.includes(factor) ? [...amr] : [...amr, factor]
}

function managerDeps(ctx: HttpContext): FlowDeps {
  const manager = ctx.auth.manager
  return { events: manager.events, challenge: manager.challenge }
}

/** Web: the login of the request's (session) guard. See the module comment. */
export async function finishWebLogin(ctx: HttpContext, attempt: LoginAttempt): Promise<WebLoginOutcome> {
  const guard = ctx.auth.resolve() as unknown as FlowGuard
  if (guard.driverName !== 'session') throw new Error(`finishWebLogin needs a session guard; "${guard.name}" is a ${guard.driverName} guard`)
  return startWeb(ctx, guard, managerDeps(ctx), attempt)
}

/** API: the token response of guard `guardName` (default `jwt`), or 401 `E_MFA_REQUIRED` thrown. */
export async function finishApiLogin(ctx: HttpContext, attempt: LoginAttempt, guardName = 'jwt'): Promise<TokenResponseBody> {
  const guard = ctx.auth.resolve(guardName) as unknown as FlowGuard
  return startApi(ctx, guard, managerDeps(ctx), attempt)
}

/**
 * The flow for a guard's own `attempt`, `attemptById` and registration (see BaseGuard): web or
 * API by the guard's driver. `event: false` (registration, which emits `auth:registered`) makes
 * the login without `auth:login_succeeded`.
 */
export async function finishGuardLogin(ctx: HttpContext, guard: FlowGuard, deps: FlowDeps, attempt: LoginAttempt, options: { event?: boolean } = {}): Promise<WebLoginOutcome | TokenResponseBody> {
  if (guard.driverName === 'session') return startWeb(ctx, guard, deps, attempt, options)
  return startApi(ctx, guard, deps, attempt, options)
}

/** Runs the challenge for `attempt` when its method has one: it returns, or throws to hold the login back. */
async function challenge(ctx: HttpContext, guard: FlowGuard, deps: FlowDeps, attempt: LoginAttempt): Promise<void> {
  if (!CHALLENGED_METHODS.has(attempt.method) || !deps.challenge) return
  ctx.state.loginAttempt = attempt
  try {
    await deps.challenge(ctx, guard.name, attempt.user)
  } finally {
    delete ctx.state.loginAttempt
  }
}

async function startWeb(ctx: HttpContext, guard: FlowGuard, deps: FlowDeps, attempt: LoginAttempt, options: { event?: boolean } = {}): Promise<WebLoginOutcome> {
  delete ctx.state.loginAmr
  try {
    await challenge(ctx, guard, deps, attempt)
  } catch (error) {
    // Held back on the web: the challenge names the page its step is answered on.
    if (!(error instanceof SecondFactorRequiredError) || !ctx.hasSession || error.page === undefined) throw error
    holdForSecondStep(ctx, attempt)
    // A JSON request gets 401 E_MFA_REQUIRED instead of the redirect (session/json-forms).
    answerJsonError(ctx, error.status, { message: error.message, code: error.code })
    return { status: 'challenge', redirect: error.page }
  }
  // A browser the user trusted skipped the step: the login counts the factor (but never as just given).
  const amr = ctx.state.loginAmr ? withFactor(attempt.amr, 'otp') : [...attempt.amr]
  delete ctx.state.loginAmr
  const redirect = await completeWeb(ctx, guard, deps, { ...attempt, amr }, {
    secondFactor: hasSecondFactor(attempt.amr),
    confirmedAt: attempt.method === 'password' ? Date.now() : null,
    event: options.event,
  })
  return { status: 'logged_in', redirect }
}

/** The pending login the challenge started keeps what the second step needs to finish this attempt. */
function holdForSecondStep(ctx: HttpContext, attempt: LoginAttempt): void {
  const pending = ctx.session.get<unknown>(PENDING_LOGIN_KEY)
  if (!pending || typeof pending !== 'object') return
  ctx.session.put(PENDING_LOGIN_KEY, {
    ...(pending as HeldLogin),
    remember: attempt.remember === true,
    next: attempt.next ?? null,
    method: attempt.method,
    amr: [...attempt.amr],
    ...(attempt.details ? { details: attempt.details } : {}),
  })
}

/** The method and first-step amr a pending login (or an older one without them: a password) was started with. */
export function pendingAttempt(pending: HeldLogin): { method: LoginMethod; amr: string[]; details?: Record<string, unknown> } {
  // Read as unknown: the session is data, not a promise that the fields have their types.
  const { method, amr, details } = pending as { method?: unknown; amr?: unknown; details?: unknown }
  const known = typeof method === 'string' && METHODS.has(method) ? (method as LoginMethod) : Array.isArray(amr) ? 'email_link' : 'password'
  const first = Array.isArray(amr) ? amr.filter((x): x is string => typeof x === 'string') : [...PASSWORD_AMR]
  return { method: known, amr: first, ...(details && typeof details === 'object' ? { details: details as Record<string, unknown> } : {}) }
}

/**
 * Web: finishes the session's pending login after a right second-factor answer: amr of its first
 * step plus `otp`; a password login counts as confirmed when the password was typed.
 */
export async function finishWebSecondStep(ctx: HttpContext, pending: HeldLogin, user: AuthUser): Promise<string> {
  const guard = ctx.auth.resolve(pending.guard) as unknown as FlowGuard
  const first = pendingAttempt(pending)
  const attempt: LoginAttempt = { user, method: first.method, amr: withFactor(first.amr, 'otp'), remember: pending.remember, next: pending.next, ...(first.details ? { details: first.details } : {}) }
  return completeWeb(ctx, guard, managerDeps(ctx), attempt, { secondFactor: true, confirmedAt: first.method === 'password' ? pending.createdAt : null })
}

async function completeWeb(ctx: HttpContext, guard: FlowGuard, deps: FlowDeps, attempt: LoginAttempt, options: { secondFactor: boolean; confirmedAt: number | null; event?: boolean }): Promise<string> {
  const { user } = attempt
  // Read before the login: whether this browser knew the account (the "new device" e-mail).
  const knownDevice = NOTICED_METHODS.has(attempt.method) ? await guard.knownDevice(user.getKey()) : undefined
  // A new login token, the previous one revoked, a new session id and CSRF token, the device
  // cookie; the session's state of any earlier login is forgotten.
  await guard.login(user, attempt.amr)
  if (ctx.hasSession) {
    if (ctx.session.has(PENDING_LOGIN_KEY)) ctx.session.forget(PENDING_LOGIN_KEY)
    setSessionAmr(ctx, [...attempt.amr])
    // Only a typed password confirms one (`password.confirm`).
    if (options.confirmedAt !== null) ctx.session.put(PASSWORD_CONFIRMED_AT, options.confirmedAt)
    else if (ctx.session.has(PASSWORD_CONFIRMED_AT)) ctx.session.forget(PASSWORD_CONFIRMED_AT)
    if (options.secondFactor) markSecondFactor(ctx)
  }
  if (attempt.remember && guard.remember) await guard.remember(attempt.amr)
  if (options.event !== false) emitSucceeded(ctx, guard.name, deps.events, attempt, knownDevice)
  await runHooks(ctx, attempt)
  // Same-site paths only, whoever passed it (a `next` from a form, an OAuth state, a pending login).
  return sameSitePath(attempt.next) ?? '/home'
}

/**
 * Web: a login a remember-me cookie has just restored (the web guard made its login token in the
 * rotation): the amr stored with the token, `auth:login_succeeded` with `method: 'remember'`, the hooks.
 */
export async function finishRestoredLogin(ctx: HttpContext, guardName: string, events: Emitter, user: AuthUser, amr: readonly string[]): Promise<void> {
  const attempt: LoginAttempt = { user, method: 'remember', amr }
  setSessionAmr(ctx, [...amr])
  emitSucceeded(ctx, guardName, events, attempt, undefined)
  await runHooks(ctx, attempt)
}

async function startApi(ctx: HttpContext, guard: FlowGuard, deps: FlowDeps, attempt: LoginAttempt, options: { event?: boolean } = {}): Promise<TokenResponseBody> {
  await challenge(ctx, guard, deps, attempt)
  return completeApi(ctx, guard, deps, attempt, options)
}

async function completeApi(ctx: HttpContext, guard: FlowGuard, deps: FlowDeps, attempt: LoginAttempt, options: { event?: boolean } = {}): Promise<TokenResponseBody> {
  await guard.login(attempt.user, attempt.amr)
  if (options.event !== false) emitSucceeded(ctx, guard.name, deps.events, attempt, undefined)
  return { data: String(guard.token ?? '') }
}

/** The `auth_challenges` purposes of an API second step, by the method of its first step. */
const MFA_PURPOSE: Partial<Record<LoginMethod, ChallengePurpose>> = { password: 'mfa', social: 'mfa_social', email_link: 'mfa_email_link', email_code: 'mfa_email_code' }
const FIRST_STEP_AMR: Partial<Record<LoginMethod, readonly string[]>> = { password: PASSWORD_AMR, social: ['social'], email_link: ['email'], email_code: ['email'] }
/** Every purpose an `mfa_token` may have. */
export const MFA_PURPOSES: readonly ChallengePurpose[] = [...new Set(Object.values(MFA_PURPOSE))]

/** The purpose of the `mfa_token` for the attempt the challenge runs for (a password when none). */
export function mfaPurposeOf(ctx: HttpContext): ChallengePurpose {
  const method = ctx.state.loginAttempt?.method
  return (method && MFA_PURPOSE[method]) ?? 'mfa'
}

/**
 * API: the token response after a right answer to an `mfa_token` of `purpose`: the method of its
 * first step, amr that step's plus `otp` (an e-mailed code and TOTP: `['email', 'otp']`).
 */
export async function finishApiSecondStep(ctx: HttpContext, user: AuthUser, purpose: string, guardName = 'jwt'): Promise<TokenResponseBody> {
  const method = ((Object.keys(MFA_PURPOSE) as LoginMethod[]).find((m) => MFA_PURPOSE[m] === purpose) ?? 'password') as LoginMethod
  const guard = ctx.auth.resolve(guardName) as unknown as FlowGuard
  return completeApi(ctx, guard, managerDeps(ctx), { user, method, amr: withFactor(FIRST_STEP_AMR[method] ?? PASSWORD_AMR, 'otp') })
}

function emitSucceeded(ctx: HttpContext, guard: string, events: Emitter, attempt: LoginAttempt, knownDevice: boolean | undefined): void {
  const base = eventBase(ctx, guard, attempt.user)
  events.emit('auth:login_succeeded', { ...attempt.details, ...base, user: attempt.user, method: attempt.method, ...(knownDevice === undefined ? {} : { knownDevice }) })
}

async function runHooks(ctx: HttpContext, attempt: LoginAttempt): Promise<void> {
  for (const hook of hooks.get(ctx.app) ?? []) await hook(ctx, attempt.user, attempt)
}
