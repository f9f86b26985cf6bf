/**
 * @module auth/email-login/complete
 * Finishes a sign-in by a used link or code, the way every login finishes: the account (created
 * on first use with `register`), the address marked verified, the second factor (a TOTP user is
 * handed to `/two-factor-challenge`, or gets `E_MFA_REQUIRED` on the API), then the web guard's
 * login (new session id and CSRF token, device cookie), amr `['email']`, no password
 * confirmation, and `auth:login_succeeded` with `method` `email_link` or `email_code`.
 *
 * An unverified account is claimed, not joined: whoever registered the address before may not
 * own it, so, in one transaction, the address is verified and the password, passkeys, TOTP
 * enrolment, logins and tokens made before are removed (through the inventory).
 */
import type { HttpContext } from '../../http/context.js'
import { db } from '../../database/database-manager.js'
import { eventBase } from '../events.js'
import { normalizeEmail } from '../email.js'
import { isVerified } from '../accounts/verification.js'
import { knownDeviceOf } from '../guards/web/guard.js'
import { PASSWORD_CONFIRMED_AT } from '../middleware/password-confirm-middleware.js'
import { setSessionAmr } from '../two-factor/amr.js'
import { SecondFactorRequiredError } from '../two-factor/errors.js'
import { PENDING_LOGIN_KEY } from '../two-factor/pending-login.js'
import { randomToken } from '../../support/random-token.js'
import type { ModelUser } from '../user-providers/model-user-provider.js'
import type { EmailLogin } from './email-login.js'
import type { EmailLoginRow } from './store.js'

/** The amr of an e-mail sign-in, and of one that then passed the second step. */
export const EMAIL_AMR: readonly string[] = ['email']
export const EMAIL_OTP_AMR: readonly string[] = ['email', 'otp']

export type SignInMethod = 'email_link' | 'email_code'

/** The account a row signs into, with whether this sign-in creates or claims it. */
export interface Account {
  user: ModelUser
  /** The address was not verified: this sign-in claims the account. */
  claim: boolean
  created: boolean
}

function users(service: EmailLogin) {
  const model = service.manager.resolved.model!
  return { table: model.getTable(), key: model.getPrimaryKey(), email: model.authColumn ?? 'email' }
}

/**
 * The account of `row`, or null when there is none to sign into (deleted, its address changed
 * since the mail, or no account and no `register`). Creates it for `register`.
 */
export async function accountOf(service: EmailLogin, row: EmailLoginRow): Promise<Account | null> {
  const { table, key, email } = users(service)
  if (row.user_id !== null && row.user_id !== undefined) {
    const user = (await service.provider().findById(row.user_id)) as ModelUser | null
    if (!user || normalizeEmail((user as Record<string, unknown>)[email]) !== row.email) return null
    return { user, claim: !isVerified(user), created: false }
  }
  if (!service.registers()) return null
  const existing = await service.findUser(row.email)
  if (existing) return { user: existing, claim: !isVerified(existing), created: false }
  const now = new Date()
  const password = (await passwordTakesNull(table)) ? null : await service.manager.hasher.hash(randomToken(32))
  const values: Record<string, unknown> = { name: row.email.split('@')[0] || row.email, [email]: row.email, password, created_at: now, updated_at: now }
  // The column comes with the account tables, which `craft auth` writes with this feature's.
  values.email_verified_at = now
  await db()(table).insert(values)
  const created = await db()(table).where(email, row.email).first(key)
  const user = created ? ((await service.provider().findById(created[key])) as ModelUser | null) : null
  return user ? { user, claim: false, created: true } : null
}

/** Whether `users.password` takes null (new apps); asked once per process. */
let nullablePassword: Promise<boolean> | undefined
async function passwordTakesNull(table: string): Promise<boolean> {
  nullablePassword ??= Promise.resolve(db()(table).columnInfo('password')).then((info) => (info as { nullable?: boolean }).nullable === true)
  return nullablePassword.catch(() => false)
}

/** Verifies the address; for a claim, in the same transaction, removes what was set up before. */
export async function verifyAddress(service: EmailLogin, account: Account): Promise<void> {
  const { table, key } = users(service)
  const userId = account.user.getKey()
  if (!account.claim) return
  // A column that refuses null (an app migrated before e-mail sign-in): a password nobody knows.
  const password = (await passwordTakesNull(table)) ? null : await service.manager.hasher.hash(randomToken(32))
  const inventory = service.manager.inventory
  await db().transaction(async (trx) => {
    await trx(table).where(key, userId as string | number).update({ email_verified_at: new Date(), password })
    await inventory.revokeAll(userId, { reason: 'secure', trx })
    await inventory.revokeCreatedSince(userId, new Date(0), trx)
  })
  const fresh = await service.provider().findById(userId)
  if (fresh) account.user = fresh as ModelUser
}

/**
 * Runs the second-factor challenge for a web sign-in: null when the login may finish now (amr to
 * record), or 'challenge' when the pending login waits on `/two-factor-challenge`.
 */
async function secondFactor(ctx: HttpContext, user: ModelUser): Promise<readonly string[] | 'challenge'> {
  const manager = ctx.auth.manager
  delete ctx.state.loginAmr
  try {
    await manager.challenge(ctx, ctx.auth.guardName, user)
  } catch (error) {
    if (!(error instanceof SecondFactorRequiredError) || !ctx.hasSession) throw error
    // The pending login remembers it was made by e-mail: its second step records amr ['email', 'otp'].
    const pending = ctx.session.get<Record<string, unknown>>(PENDING_LOGIN_KEY)
    if (pending && typeof pending === 'object') ctx.session.put(PENDING_LOGIN_KEY, { ...pending, amr: [...EMAIL_AMR] })
    return 'challenge'
  }
  return ctx.state.loginAmr ? EMAIL_OTP_AMR : EMAIL_AMR
}

/** Logs `account` in on the web guard (see the module comment): where to go next. */
export async function completeWebSignIn(ctx: HttpContext, service: EmailLogin, account: Account, method: SignInMethod): Promise<'challenge' | 'done'> {
  await verifyAddress(service, account)
  const { user } = account
  if (account.created) service.manager.events.emit('auth:registered', { ...eventBase(ctx, ctx.auth.guardName, user), method: 'email' })
  const amr = await secondFactor(ctx, user)
  if (amr === 'challenge') return 'challenge'
  const manager = ctx.auth.manager
  // Read before login(): whether this browser knew the account (the "new device" e-mail).
  const knownDevice = (await knownDeviceOf(ctx, manager.deviceRevocations, user.getKey())) !== null
  await ctx.auth.resolve().login(user)
  // An e-mail is not a typed password: `password.confirm` still asks for one.
  if (ctx.hasSession) ctx.session.forget(PASSWORD_CONFIRMED_AT)
  setSessionAmr(ctx, [...amr])
  manager.events.emit('auth:login_succeeded', { ...eventBase(ctx, ctx.auth.guardName, user), knownDevice, method })
  return 'done'
}
