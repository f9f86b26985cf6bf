/**
 * @module auth/passkeys/passkey-forms
 * What the generated PasskeyController does:
 *
 * - `GET /account/passkeys` [auth]: the user's passkeys, "Add a passkey", a remove button each.
 * - `POST /passkeys/register/options` [auth, verified, password.confirm, mfa.recent]: the
 *   creation options (JSON). An unverified address (with `email_verification` on): 403
 *   `E_EMAIL_NOT_VERIFIED`; the action checks it and `mfa.recent` itself, whatever the order.
 * - `POST /passkeys/register` [the same]: the browser's answer (and an optional
 *   `name`) verified and stored; 201 with the passkey. When it is the user's first factor (no
 *   passkey and no TOTP before), the session now counts as having used a second factor
 *   (`webauthn` added to its amr, under a new session id).
 * - `POST /account/passkeys/@id/delete` [auth, password.confirm]: removes one of the user's own
 *   passkeys (anyone else's, or an unknown id: 404); 302 back to the list.
 * - Adding a passkey for a user who already has a factor needs one given in the last
 *   `password_timeout` minutes (`mfa.recent`: a trusted-device mark never counts); removing one
 *   needs a login that used one: a password-only session is sent to step up as `mfa` would (a page: 302
 *   to the second step's page; JSON: 403 `E_MFA_REQUIRED`), so a password alone never adds,
 *   nor removes, a second factor.
 * - `POST /passkeys/login/options`: the request options of a sign-in with a discoverable passkey;
 *   one slot of the `ip` budget each (it stores a challenge for anyone who asks).
 * - `POST /passkeys/login`: the browser's answer verified; the owner is logged in on the web
 *   guard as a password login would be (new login, new session), with amr `['webauthn']`, which
 *   satisfies `mfa`; answers `{ redirect }`: `next` when it is a same-site path, else the
 *   `next` of a password login waiting in this session for its second step (which this login
 *   replaces, keeping its "remember me" when it was for the same account), else /home. A
 *   logged-in user answering with their own passkey steps up instead (same login, `webauthn`
 *   added to its amr, back to the page `mfa` stopped); with another account's passkey: 403,
 *   nothing changes.
 *
 * A sign-in answer takes one slot of the `ip` budget (per client address, as a password attempt
 * does). Every refused sign-in is a refused second-factor answer (`emitSecondFactorFailed`,
 * `method: 'passkey'`).
 */
import type { HttpContext } from '../../http/context.js'
import { NotFoundError, TooManyRequestsError, ValidationError } from '../../http/errors.js'
import { sameSitePath } from '../../http/response.js'
import { eventBase } from '../events.js'
import { clientKey } from '../throttle/client-key.js'
import { formatWhen } from '../accounts/devices.js'
import { finishWebLogin } from '../login/flow.js'
import { emitSecondFactorFailed } from '../login/second-factor-failed.js'
import { rotateCurrentLogin } from '../guards/web/guard.js'
import { hasFactor, MFA_INTENDED, stepUpIfEnrolled } from '../middleware/mfa-middleware.js'
import { CONFIRM_INTENDED, markPasswordConfirmed } from '../middleware/password-confirm-middleware.js'
import { passwordHashOf } from '../accounts/first-password.js'
import { requireRecentSecondFactor } from '../middleware/mfa-recent-middleware.js'
import { refuseUnverified } from '../middleware/verified-middleware.js'
import { PENDING_LOGIN_KEY } from '../login/amr.js'
import { ModelUserProvider } from '../user-providers/model-user-provider.js'
import { markSecondFactor, sessionAmr, setSessionAmr } from '../login/amr.js'
import type { AuthUser } from '../types.js'
import { credentialIn, PASSKEY_NAME_MAX, type Passkey, type PasskeyRefusal, type Passkeys } from './passkeys.js'
import { PasskeyInvalidError, PasskeyLoginFailedError, PasskeyWrongAccountError } from './errors.js'

export const PASSKEY_MESSAGES = {
  added: 'Passkey added.',
  removed: 'Passkey removed.',
  needsScript: 'Adding a passkey needs JavaScript and a browser that supports passkeys.',
} as const

const LIST = '/account/passkeys'

function service(ctx: HttpContext): Passkeys {
  return ctx.app.make('auth.passkeys')
}

/** What the page and the JSON list show of a passkey. */
function describe(p: Passkey) {
  return {
    id: p.id,
    name: p.name,
    created_at: p.createdAt,
    last_used_at: p.lastUsedAt,
    device_type: p.deviceType,
    backed_up: p.backedUp,
    synced: p.deviceType === 'multiDevice',
    transports: p.transports,
  }
}

/** The default name of a passkey added on `at`: "Passkey (2025-01-31)". */
export function defaultPasskeyName(at = new Date()): string {
  return `Passkey (${at.toISOString().slice(0, 10)})`
}

/** The `name` field: trimmed, at most 100 characters, else the default; anything else a 422. */
function nameFrom(value: unknown): string {
  if (value === undefined || value === null) return defaultPasskeyName()
  if (typeof value !== 'string') throw new ValidationError({ name: ['The name field must be a string.'] })
  const name = value.replace(/\s+/g, ' ').trim()
  if (name === '') return defaultPasskeyName()
  if ([...name].length > PASSKEY_NAME_MAX) throw new ValidationError({ name: [`The name field must not be greater than ${PASSKEY_NAME_MAX} characters.`] })
  return name
}

function emailOf(ctx: HttpContext, user: AuthUser): string {
  const column: string = ctx.auth.manager.model?.authColumn ?? 'email'
  return String((user as unknown as Record<string, unknown>)[column] ?? '')
}

async function findUser(ctx: HttpContext, id: unknown): Promise<AuthUser | null> {
  const manager = ctx.auth.manager
  const model = manager.resolved.modelFor(ctx.auth.guardName) ?? manager.model
  return (await new ModelUserProvider(model).findById(id)) as AuthUser | null
}

/** The same-site path kept in the session under `key`, forgotten; null when there is none. */
function takeSessionPath(ctx: HttpContext, key: string): string | null {
  if (!ctx.hasSession) return null
  const path = sameSitePath(ctx.session.get<unknown>(key))
  ctx.session.forget(key)
  return path
}

/** The password login waiting in the session for its second step, forgotten; null when there is none. */
function takePendingLogin(ctx: HttpContext): { userId?: unknown; next?: unknown; remember?: unknown } | null {
  if (!ctx.hasSession) return null
  const value = ctx.session.get<unknown>(PENDING_LOGIN_KEY)
  if (value !== undefined) ctx.session.forget(PENDING_LOGIN_KEY)
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : null
}


/**
 * Takes one slot of the per-address `ip` budget (the one password attempts use); 429
 * E_TOO_MANY_REQUESTS with Retry-After when it is spent.
 */
async function takeIpSlot(ctx: HttpContext): Promise<void> {
  const manager = ctx.auth.manager
  const budget = manager.budgets.ip
  const wait = await budget.take(budget.key(clientKey(ctx.request.ip())))
  if (wait === null) return
  const error = new TooManyRequestsError(wait)
  manager.events.emit('auth:throttled', { ...eventBase(ctx, ctx.auth.guardName, null), retryAfter: error.retryAfter })
  throw error
}

/** A refused sign-in: logged and audited, then 401 E_PASSKEY_FAILED. */
async function refuse(ctx: HttpContext, reason: PasskeyRefusal, passkey: Passkey | null, detail?: string): Promise<never> {
  const { request } = ctx
  const user = passkey ? await findUser(ctx, passkey.userId) : null
  const fields = { reason, passkey_id: passkey?.id ?? null, user_id: passkey?.userId ?? null, ip: request.ip(), request_id: request.id, ...(detail ? { detail } : {}) }
  // A counter that did not grow on a valid signature: two authenticators hold one key.
  if (reason === 'counter') ctx.app.log.warn('auth.passkey_possible_clone', fields)
  else ctx.app.log.warn('auth.passkey_refused', fields)
  emitSecondFactorFailed(ctx, ctx.auth.guardName, user, 'passkey')
  throw new PasskeyLoginFailedError()
}

export const PasskeyForms = {
  /** GET /account/passkeys: the list (name, added, last used, synced or on one device) and the add and remove buttons. */
  async index(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate<AuthUser>()
    const passkeys = await service(ctx).list(user.getKey())
    ctx.response.header('Cache-Control', 'no-store')
    if (ctx.request.wantsJson()) return { data: passkeys.map(describe) }
    const rows = passkeys.map((p) => ({
      ...describe(p),
      created: formatWhen(p.createdAt),
      lastUsed: p.lastUsedAt ? formatWhen(p.lastUsedAt) : 'Never',
      createdIso: p.createdAt?.toISOString() ?? '',
      lastUsedIso: p.lastUsedAt?.toISOString() ?? '',
    }))
    return ctx.view.render('auth/passkeys', { user, passkeys: rows, name_max: PASSKEY_NAME_MAX })
  },

  /**
   * POST /passkeys/register/options: the options for `navigator.credentials.create()`. Sent as a
   * plain form (no JavaScript), it goes back to the list with a message instead.
   */
  async registerOptions(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate<AuthUser>()
    const refused = refuseUnverified(ctx, user) ?? (await requireRecentSecondFactor(ctx))
    if (refused !== undefined) return refused
    if (!ctx.request.wantsJson() && !ctx.request.isJson() && ctx.hasSession) {
      ctx.session.flash('error', PASSKEY_MESSAGES.needsScript)
      return ctx.response.redirect(LIST)
    }
    const email = emailOf(ctx, user)
    const name = (user as unknown as Record<string, unknown>).name
    const options = await service(ctx).registrationOptions({ id: user.getKey(), name: email, displayName: typeof name === 'string' && name !== '' ? name : email })
    ctx.response.header('Cache-Control', 'no-store')
    return options
  },

  /** POST /passkeys/register: `response` (the browser's answer) and `name`; 201 with the passkey. */
  async register(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate<AuthUser>()
    const refused = refuseUnverified(ctx, user) ?? (await requireRecentSecondFactor(ctx))
    if (refused !== undefined) return refused
    const body = (ctx.request.body ?? {}) as Record<string, unknown>
    const credential = credentialIn(body)
    if (!credential) throw new PasskeyInvalidError()
    const name = nameFrom(body.name)
    // Read before the passkey is stored: whether this one is the user's first factor.
    const first = !(await hasFactor(ctx, user))
    const passkey = await service(ctx).register(user.getKey(), credential, name)
    ctx.app.events.emit('auth:passkey_added', { ...eventBase(ctx, ctx.auth.guardName, user), passkeyId: passkey.id, name: passkey.name, item: { kind: 'passkeys', id: String(passkey.id) } })
    // A first factor, just shown by the authenticator that holds it: the session has used a
    // second factor, and `mfa` routes let it through (a new session id for the raised assurance).
    // A user who had a factor already showed one to get here (stepUpIfEnrolled): nothing changes.
    const amr = sessionAmr(ctx)
    if (first && !amr.includes('webauthn') && ctx.hasSession) {
      ctx.session.regenerate()
      setSessionAmr(ctx, [...amr, 'webauthn'])
    }
    if (first) markSecondFactor(ctx)
    // For the page the script reloads.
    if (ctx.hasSession) ctx.session.flash('success', PASSKEY_MESSAGES.added)
    return ctx.response.json({ message: PASSKEY_MESSAGES.added, passkey: describe(passkey) }, 201)
  },

  /** POST /account/passkeys/@id/delete: removes one of the user's passkeys; 302 back to the list. */
  async destroy(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate<AuthUser>()
    const stepUp = await stepUpIfEnrolled(ctx)
    if (stepUp !== undefined) return stepUp
    const removed = await service(ctx).remove(user.getKey(), ctx.params.id)
    if (!removed) throw new NotFoundError()
    ctx.app.events.emit('auth:passkey_removed', { ...eventBase(ctx, ctx.auth.guardName, user), passkeyId: removed.id, name: removed.name })
    ctx.session.flash('success', PASSKEY_MESSAGES.removed)
    return ctx.response.redirect(LIST)
  },

  /** POST /passkeys/login/options: the options for `navigator.credentials.get()` (any of the site's passkeys). */
  async loginOptions(ctx: HttpContext): Promise<unknown> {
    // Every call stores a challenge: one slot per call, before anything is written.
    await takeIpSlot(ctx)
    const options = await service(ctx).authenticationOptions()
    ctx.response.header('Cache-Control', 'no-store')
    return options
  },

  /** POST /passkeys/login: `response` (the browser's answer) and `next`; `{ redirect }` once logged in. */
  async login(ctx: HttpContext): Promise<unknown> {
    const { request } = ctx
    const body = (request.body ?? {}) as Record<string, unknown>

    // One slot per answer, on the per-address budget password attempts use too.
    await takeIpSlot(ctx)

    const credential = credentialIn(body)
    if (!credential) throw new PasskeyInvalidError()
    const next = sameSitePath(body.next)
    const passkeys = service(ctx)
    const outcome = await passkeys.verifyAssertion(credential)
    if (!outcome.ok) return refuse(ctx, outcome.reason, outcome.passkey, outcome.detail)
    const owner = await findUser(ctx, outcome.passkey.userId)
    if (!owner) return refuse(ctx, 'unknown', null)

    const current = (await ctx.auth.check()) ? ctx.auth.user<AuthUser>() : null
    if (current && String(current.getKey()) !== String(owner.getKey())) throw new PasskeyWrongAccountError()
    if (!(await passkeys.recordUse(outcome))) return refuse(ctx, 'counter', outcome.passkey)

    let target = next
    if (current) {
      // A step-up of this login (the `mfa` middleware sent the user to answer): a new session id
      // and new login and remember-me tokens for the raised assurance, the same login, then the page
      // `mfa` stopped.
      target ??= takeSessionPath(ctx, MFA_INTENDED)
      setSessionAmr(ctx, [...new Set([...sessionAmr(ctx), 'webauthn'])])
      await rotateCurrentLogin(ctx)
      if (ctx.hasSession) ctx.session.regenerate()
      markSecondFactor(ctx)
      // A user without a password has none to type on /confirm-password: a fresh assertion of
      // their own passkey is the confirmation, and sends them where `password.confirm` stopped them.
      if (passwordHashOf(ctx, current) === null) {
        markPasswordConfirmed(ctx)
        target ??= takeSessionPath(ctx, CONFIRM_INTENDED)
      }
    } else {
      // A password login waiting for its second step in this browser is replaced by this login;
      // its `next`, and its "remember me" when it was for the same account, carry over.
      const pending = takePendingLogin(ctx)
      target ??= sameSitePath(pending?.next)
      // The login flow: amr ['webauthn'] (a second factor already, never challenged), not a typed
      // password (`password.confirm` still asks for one).
      const remember = pending?.remember === true && String(pending.userId) === String(owner.getKey())
      const outcome = await finishWebLogin(ctx, { user: owner, method: 'passkey', amr: ['webauthn'], remember, next: target ?? null })
      target = outcome.redirect
    }
    ctx.response.header('Cache-Control', 'no-store')
    return { redirect: target ?? '/home' }
  },
}
