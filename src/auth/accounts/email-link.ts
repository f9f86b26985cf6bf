/**
 * @module auth/accounts/email-link
 * What a mailed verification link `<APP_URL>/email/verify/<token>` is, and what confirming it
 * does. Opening a link (GET or HEAD) only looks at it (`inspectEmailLink`); a mail scanner or a
 * link preview changes nothing. The page's button POSTs, and only that applies it (`verifyEmail`).
 *
 * A link is a `verify_email` row of `user_tokens` whose `email` is the address it proves:
 * - the account's own address (compared normalised): a **verification**. The link is the proof,
 *   so it works logged out, or logged in as anyone;
 * - another address: an e-mail **change**. It is applied only by a POST of a session logged in as
 *   that account: a link opened logged out or by another account is refused and stays usable, so
 *   an attacker who moves their own account to a victim's address gets nothing from the victim's
 *   mail scanner, and a change link alone never moves an account (it needs the owner's login).
 *
 * Confirming consumes the row and applies its effect in one transaction, so of any number of
 * concurrent POSTs with one link exactly one succeeds. An e-mail change whose address another
 * account took meanwhile changes nothing (`status: 'taken'`).
 */
import type { Knex } from 'knex'
import type { HttpContext } from '../../http/context.js'
import { UniqueConstraintError, translateDatabaseError } from '../../database/errors.js'
import { normalizeEmail } from '../email.js'
import { eventBase } from '../events.js'
import { AuthConfigError } from '../errors.js'
import { isVerified } from './verification.js'
import { emailTaken } from './email-verification.js'
import type { UserTokenRow } from './user-tokens.js'

/** What a live link would do: verify the account's address, or change it to `email`. */
export type EmailLinkKind = 'verify' | 'change'

/** A link as its page shows it (GET/HEAD): nothing is changed by looking. */
export type EmailLinkInfo =
  /** Unknown, used, expired, or its account is gone. */
  | { status: 'invalid' }
  /**
   * A live link. `email` is the address it proves; `owner` whether the request's login is the
   * link's account (a change needs it); `verified` whether a verification would change nothing.
   */
  | { status: 'valid'; kind: EmailLinkKind; email: string; owner: boolean; loggedIn: boolean; verified: boolean }

/** What confirming a link (POST) did. */
export type VerifyEmailOutcome =
  /** `email` is now the account's verified address; `from` is the address before a change (else null). */
  | { status: 'verified'; user: any; email: string; from: string | null }
  /** Unknown, used or expired: nothing changed. */
  | { status: 'invalid' }
  /** An e-mail change whose address another account took meanwhile: nothing changed, the link is used up. */
  | { status: 'taken'; email: string }
  /** An e-mail change confirmed without a login (`login_required`) or by another account (`wrong_user`): nothing changed, the link still works. */
  | { status: 'login_required' | 'wrong_user'; email: string }

interface LinkModel {
  table: string
  pk: string
  column: string
  timestamps: boolean
  model: any
}

function linkModel(ctx: HttpContext): LinkModel {
  const model = ctx.auth.manager.model as any
  if (!model) throw new AuthConfigError('GUARDS.web.model is not set in config/auth.ts.')
  const timestamps = typeof model.usesTimestamps === 'function' ? Boolean(model.usesTimestamps()) : false
  return { table: model.getTable(), pk: model.getPrimaryKey(), column: model.authColumn ?? 'email', timestamps, model }
}

/** The id of the user this request is logged in as (the request's default guard), or null. */
async function loggedInId(ctx: HttpContext): Promise<string | null> {
  if (!(await ctx.auth.check())) return null
  const user = ctx.auth.user() as { getKey(): unknown } | null
  return user ? String(user.getKey()) : null
}

/** The row's account and whether the row is a verification or a change, or null when the account is gone. */
async function classify(db: Knex | Knex.Transaction, row: UserTokenRow, m: LinkModel): Promise<{ record: Record<string, any>; kind: EmailLinkKind; wanted: string } | null> {
  if (typeof row.email !== 'string' || row.email === '') return null
  const record = await db(m.table).where(m.pk, row.user_id as string | number).first()
  if (!record) return null
  const wanted = normalizeEmail(row.email)
  const kind: EmailLinkKind = normalizeEmail(String(record[m.column] ?? '')) === wanted ? 'verify' : 'change'
  return { record, kind, wanted }
}

/** Looks at a link without using it up: the page shown by `GET /email/verify/@token`. */
export async function inspectEmailLink(ctx: HttpContext, token: unknown): Promise<EmailLinkInfo> {
  const m = linkModel(ctx)
  const row = await ctx.auth.manager.userTokens.peek(token, 'verify_email')
  if (!row) return { status: 'invalid' }
  const found = await classify(ctx.auth.manager.db(), row, m)
  if (!found) return { status: 'invalid' }
  const me = await loggedInId(ctx)
  return { status: 'valid', kind: found.kind, email: found.wanted, owner: me !== null && me === String(row.user_id), loggedIn: me !== null, verified: found.kind === 'verify' && isVerified(found.record) }
}

type Applied =
  | { status: 'verified'; userId: unknown; email: string; from: string | null; changed: boolean }
  | { status: 'invalid' }
  | { status: 'taken'; email: string }
  | { status: 'login_required' | 'wrong_user'; email: string }

/**
 * Confirms a link (`POST /email/verify/@token`): see the module comment. Emits
 * `auth:email_verified` (and `auth:email_changed` for a change) after the transaction committed.
 */
export async function verifyEmail(ctx: HttpContext, token: unknown): Promise<VerifyEmailOutcome> {
  const mgr = ctx.auth.manager
  const m = linkModel(ctx)
  // Asked before the transaction: on SQLite (one connection) the guard's query would wait for it.
  const me = await loggedInId(ctx)
  let wantedEmail = ''
  let applied: Applied
  try {
    applied = await ctx.auth.manager.db().transaction(async (trx): Promise<Applied> => {
      const row = await mgr.userTokens.peek(token, 'verify_email', trx)
      if (!row) return { status: 'invalid' }
      const found = await classify(trx, row, m)
      if (!found) return { status: 'invalid' }
      wantedEmail = found.wanted
      // A change needs its account's login; refused, the link is left as it was.
      if (found.kind === 'change' && me !== String(row.user_id)) return { status: me === null ? 'login_required' : 'wrong_user', email: found.wanted }
      // Only the request whose delete removed the row goes on.
      if (!(await mgr.userTokens.consume(token, 'verify_email', trx))) return { status: 'invalid' }
      const id = row.user_id as string | number
      const current = String(found.record[m.column] ?? '')
      const now = new Date()
      if (found.kind === 'verify') {
        if (isVerified(found.record)) return { status: 'verified', userId: id, email: current, from: null, changed: false }
        await trx(m.table).where(m.pk, id).update({ email_verified_at: now })
        return { status: 'verified', userId: id, email: current, from: null, changed: true }
      }
      // An e-mail change: the new address must still be free (the unique index backs this up).
      if (await emailTaken(ctx, found.wanted, id, trx)) return { status: 'taken', email: found.wanted }
      const changes: Record<string, unknown> = { [m.column]: found.wanted, email_verified_at: now }
      if (m.timestamps) changes.updated_at = now
      await trx(m.table).where(m.pk, id).update(changes)
      // Reset links mailed to the old address die with it; so does any other pending link.
      const resets = mgr.resolved.passwordResetTable
      await mgr.inventory.migrated.ready(trx)
      if (mgr.inventory.migrated.has(resets)) await trx(resets).where('email', current).delete()
      await mgr.userTokens.revokeAll(id, 'verify_email', trx)
      return { status: 'verified', userId: id, email: found.wanted, from: current, changed: true }
    })
  } catch (error) {
    // Another account took the address between the check and the update: nothing was changed
    // (the whole transaction, the link's use included, was rolled back).
    if (translateDatabaseError(error, { table: m.table }) instanceof UniqueConstraintError) return { status: 'taken', email: wantedEmail }
    throw error
  }
  if (applied.status !== 'verified') return applied
  const user = await m.model.find(applied.userId)
  if (!user) return { status: 'invalid' }
  if (applied.changed) {
    const guard = ctx.auth.guardName
    mgr.events.emit('auth:email_verified', { ...eventBase(ctx, guard, user), email: applied.email })
    if (applied.from !== null) mgr.events.emit('auth:email_changed', { ...eventBase(ctx, guard, user), from: applied.from, to: applied.email })
  }
  return { status: 'verified', user, email: applied.email, from: applied.from }
}
