/**
 * @module auth/email-login/complete
 * Finishes a sign-in by a used link or code: the account (created on first use with `register`),
 * the address marked verified, then the login flow (auth/login): the second factor (a user with
 * one is handed to the second step's page, or gets `E_MFA_REQUIRED` on the API), the guard's login,
 * amr `['email']`, no password confirmation, `auth:login_succeeded` with `method` `email_link`
 * or `email_code`.
 *
 * An unverified account is claimed, not joined: whoever registered the address before may not
 * own it, so, in one transaction, the address is verified and the password, passkeys, TOTP
 * enrolment, logins and tokens made before are removed (through the inventory).
 */
import type { HttpContext } from '../../http/context.js'
import { eventBase } from '../events.js'
import { normalizeEmail } from '../email.js'
import { isVerified } from '../accounts/verification.js'
import { finishWebLogin } from '../login/flow.js'
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
  const password = (await passwordTakesNull(service, table)) ? null : await service.manager.hasher.hash(randomToken(32))
  const values: Record<string, unknown> = { name: row.email.split('@')[0] || row.email, [email]: row.email, password, created_at: now, updated_at: now }
  // The column comes with the account tables, which `craft auth` writes with this feature's.
  values.email_verified_at = now
  await service.manager.db()(table).insert(values)
  const created = await service.manager.db()(table).where(email, row.email).first(key)
  const user = created ? ((await service.provider().findById(created[key])) as ModelUser | null) : null
  return user ? { user, claim: false, created: true } : null
}

/** Whether `users.password` takes null (new apps); asked once per app. */
const nullablePassword = new WeakMap<object, Promise<boolean>>()
async function passwordTakesNull(service: EmailLogin, table: string): Promise<boolean> {
  let answer = nullablePassword.get(service.manager)
  if (!answer) {
    answer = Promise.resolve(service.manager.db()(table).columnInfo('password')).then((info) => (info as { nullable?: boolean }).nullable === true)
    nullablePassword.set(service.manager, answer)
  }
  return answer.catch(() => false)
}

/** Verifies the address; for a claim, in the same transaction, removes what was set up before. */
export async function verifyAddress(service: EmailLogin, account: Account): Promise<void> {
  const { table, key } = users(service)
  const userId = account.user.getKey()
  if (!account.claim) return
  // A column that refuses null (an app migrated before e-mail sign-in): a password nobody knows.
  const password = (await passwordTakesNull(service, table)) ? null : await service.manager.hasher.hash(randomToken(32))
  const inventory = service.manager.inventory
  await service.manager.db().transaction(async (trx) => {
    await trx(table).where(key, userId as string | number).update({ email_verified_at: new Date(), password })
    await inventory.revokeAll(userId, { reason: 'secure', trx })
    await inventory.revokeCreatedSince(userId, new Date(0), trx)
  })
  const fresh = await service.provider().findById(userId)
  if (fresh) account.user = fresh as ModelUser
}

/** Signs `account` in on the web through the login flow: the second step's page when the login waits for it, else null. */
export async function completeWebSignIn(ctx: HttpContext, service: EmailLogin, account: Account, method: SignInMethod): Promise<string | null> {
  await verifyAddress(service, account)
  const { user } = account
  if (account.created) service.manager.events.emit('auth:registered', { ...eventBase(ctx, ctx.auth.guardName, user), method: 'email' })
  // amr ['email'] (['email', 'otp'] after the second step); an e-mail is not a typed password.
  const outcome = await finishWebLogin(ctx, { user, method, amr: EMAIL_AMR })
  return outcome.status === 'challenge' ? outcome.redirect : null
}
