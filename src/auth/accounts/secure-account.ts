/**
 * @module auth/accounts/secure-account
 * "This wasn't me": what `POST /account/secure/<token>` does (the `GET` only shows what will
 * happen: see secure-account-forms.ts). The link is the proof (no login needed). It acts in one
 * database transaction, the token's use included, so a failure leaves the link usable and
 * nothing half done, and of any number of requests presenting one link exactly one acts (the
 * token's row is deleted inside the transaction; only the request whose delete removed it goes on).
 * That one, in order:
 * 1. puts the account back on the address the notice was sent to (recorded with the link) when
 *    it has moved since, marked verified; when another account took it meanwhile, the address is
 *    left as it is (`address: 'taken'`);
 * 2. ends, through the inventory (reason `secure`), every login, "remember me" token, device
 *    cookie, trusted-device mark, API token and family, personal access token, pending e-mail
 *    change and mailed link of the user;
 * 3. removes the item the notice reported (the passkey added, the TOTP enrolment...) and every
 *    passkey, TOTP enrolment, linked identity and sent invitation created at or after the
 *    reported event (to the second: the same second counts as after); older ones are kept;
 * 4. locks the current password (password-lock.ts) until a reset or change sets a new one;
 * 5. writes a password reset link, mailed (once committed) to the address the notice was sent
 *    to, never to an address being undone;
 * then emits `auth:secured` (logged and audited).
 */
import type { Knex } from 'knex'
import type { HttpContext } from '../../http/context.js'
import { normalizeEmail } from '../email.js'
import { eventBase } from '../events.js'
import { AuthConfigError } from '../errors.js'
import type { AuthUser } from '../types.js'
import { hasPasswordLock, lockPassword } from './password-lock.js'
import { emailTaken } from './email-verification.js'
import { remainingSignInMethods, type SignInMethod } from './sign-in-methods.js'
import { wholeSecond } from '../inventory/index.js'

/** What happened to the account's address: unchanged, put back to the notice's, or that one is taken. */
export type AddressOutcome = 'kept' | 'restored' | 'taken'

/** What the POST did: `secured`, or `invalid` (unknown, used or expired: nothing changed). */
export type SecureOutcome =
  | { status: 'secured'; user: AuthUser & Record<string, any>; address: AddressOutcome; methods: SignInMethod[]; passwordLocked: boolean }
  | { status: 'invalid' }

/** What a "This wasn't me" link reported, read from its row's `details`. */
interface Report {
  at: Date | null
  item: { kind: string; id: string } | null
}

function parseReport(details: unknown): Report {
  if (typeof details !== 'string' || details === '') return { at: null, item: null }
  try {
    const parsed = JSON.parse(details) as { at?: unknown; item?: { kind?: unknown; id?: unknown } | null }
    const at = typeof parsed.at === 'string' ? new Date(parsed.at) : null
    const item = parsed.item && typeof parsed.item.kind === 'string' && parsed.item.id !== undefined ? { kind: parsed.item.kind, id: String(parsed.item.id) } : null
    return { at: at && Number.isFinite(at.getTime()) ? at : null, item }
  } catch {
    return { at: null, item: null }
  }
}

/** Whether a "This wasn't me" token is live (unknown, used and expired are not), changing nothing. */
export async function secureLinkIsLive(ctx: HttpContext, token: unknown): Promise<boolean> {
  return (await ctx.auth.manager.userTokens.peek(token, 'secure')) !== null
}

type Applied = { status: 'invalid' } | { status: 'secured'; userId: unknown; address: AddressOutcome; locked: boolean; send: () => void }

/** Uses a "This wasn't me" token: see the module comment. */
export async function secureAccount(ctx: HttpContext, token: unknown): Promise<SecureOutcome> {
  const manager = ctx.auth.manager
  const model = manager.model
  if (!model) throw new AuthConfigError('GUARDS.web.model is not set in config/auth.ts.')
  const table: string = model.getTable()
  const pk: string = model.getPrimaryKey()
  const column: string = model.authColumn ?? 'email'
  // Asked before the transaction: SQLite has one connection, which the transaction holds.
  await hasPasswordLock(table, manager.inventory.migrated, manager.db())
  const applied = await manager.db().transaction(async (trx): Promise<Applied> => {
    const row = await manager.userTokens.consume(token, 'secure', trx)
    if (!row) return { status: 'invalid' }
    const record = await trx(table).where(pk, row.user_id as string | number).first()
    if (!record) return { status: 'invalid' }
    const userId = record[pk]
    const report = parseReport(row.details)
    const current = String(record[column] ?? '')
    const notified = typeof row.email === 'string' && row.email !== '' ? normalizeEmail(row.email) : current
    const address = await restoreAddress(ctx, trx, { table, pk, column, userId, current, notified })
    await revokeEverything(ctx, trx, userId, report)
    const locked = await lockPassword(model, userId, manager.inventory.migrated, trx)
    // The reset link: the row is keyed by the account's address (now the notified one unless it
    // was taken), the mail goes to the address the notice was sent to.
    const accountAddress = address === 'restored' ? notified : current
    const mailUser = { name: record.name, [column]: accountAddress, email: accountAddress, getKey: () => userId }
    const issued = await manager.broker.issueFor(mailUser, trx, { to: notified })
    return { status: 'secured', userId, address, locked, send: issued.send }
  })
  if (applied.status !== 'secured') return { status: 'invalid' }
  applied.send()
  const user = (await model.find(applied.userId)) as (AuthUser & Record<string, any>) | null
  if (!user) return { status: 'invalid' }
  manager.events.emit('auth:secured', eventBase(ctx, ctx.auth.guardName, user))
  ctx.app.log.info('auth.account_secured', { user_id: user.getKey(), address: applied.address, ip: ctx.request.ip(), request_id: ctx.request.id })
  const methods = await remainingSignInMethods(ctx, user.getKey())
  return { status: 'secured', user, address: applied.address, methods, passwordLocked: applied.locked }
}

/**
 * Step 1: the account goes back to the address the notice was sent to when it has moved since
 * (an intruder changed it), marked verified, unless another account holds that address now.
 */
async function restoreAddress(
  ctx: HttpContext,
  trx: Knex.Transaction,
  at: { table: string; pk: string; column: string; userId: unknown; current: string; notified: string },
): Promise<AddressOutcome> {
  if (at.notified === '' || normalizeEmail(at.current) === at.notified) return 'kept'
  if (await emailTaken(ctx, at.notified, at.userId, trx)) return 'taken'
  const now = new Date()
  const changes: Record<string, unknown> = { [at.column]: at.notified, email_verified_at: now }
  const model = ctx.auth.manager.model
  if (typeof model?.usesTimestamps === 'function' && model.usesTimestamps()) changes.updated_at = now
  await trx(at.table)
    .where(at.pk, at.userId as string | number)
    .update(changes)
  return 'restored'
}

/** Steps 2 and 3: everything the inventory ends for `secure`, the reported item, and what was added since. */
async function revokeEverything(ctx: HttpContext, trx: Knex.Transaction, userId: unknown, report: Report): Promise<void> {
  // Every link mailed to the user is among them (the other notices' links too: one use locks the
  // account down), and pending e-mail changes.
  const inventory = ctx.auth.manager.inventory
  await inventory.revokeAll(userId, { reason: 'secure', trx })
  if (report.item) await inventory.revokeOne(userId, report.item.kind, report.item.id, trx)
  if (report.at) await inventory.revokeCreatedSince(userId, wholeSecond(report.at), trx)
}
