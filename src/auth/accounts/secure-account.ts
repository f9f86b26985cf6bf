/**
 * @module auth/accounts/secure-account
 * "This wasn't me": what opening `<APP_URL>/account/secure/<token>` does. The link is the proof
 * (no login needed). Of any number of requests presenting one link, exactly one acts (the
 * token's row is consumed atomically); that one, in order:
 * 1. ends, through the inventory (reason `secure`), every login of the user (web logins, "remember
 *    me" tokens, device cookies, trusted browsers, API and personal access tokens) and every other
 *    link mailed to the user: the other notices' "This wasn't me" links (one use locks the account
 *    down) and pending e-mail verification or change links (an intruder may have asked to move the
 *    account to their own address);
 * 3. starts a password reset: the reset link is mailed to the account's address;
 * 4. emits `auth:secured` (logged and audited).
 * It only ever locks the account down, so acting on a GET is safe: a mail scanner that follows
 * the link logs the owner out and mails them a reset link, and reveals nothing.
 */
import type { HttpContext } from '../../http/context.js'
import type { AuthUser } from '../types.js'
import { eventBase } from '../events.js'

/** What opening the link did: `secured` (with the user), or `invalid` (unknown, used or expired: nothing changed). */
export type SecureOutcome = { status: 'secured'; user: AuthUser & Record<string, any> } | { status: 'invalid' }

/** Uses a "This wasn't me" token: see the module comment. */
export async function secureAccount(ctx: HttpContext, token: unknown): Promise<SecureOutcome> {
  const manager = ctx.auth.manager
  const row = await manager.userTokens.consume(token, 'secure')
  if (!row) return { status: 'invalid' }
  const userId = row.user_id
  const user = manager.model ? ((await manager.model.find(userId)) as (AuthUser & Record<string, any>) | null) : null
  if (!user) {
    await manager.userTokens.revokeAll(userId, 'secure')
    return { status: 'invalid' }
  }
  // Every kind the inventory ends on "This wasn't me": logins, tokens, device cookies, trusted
  // browsers, every mailed link and pending e-mail change (whoever took the account may have asked
  // to move it to their own address).
  await manager.inventory.revokeAll(user.getKey(), { reason: 'secure' })
  const column: string = manager.model.authColumn ?? 'email'
  // The reset e-mail is sent in the background by the broker; the token write is awaited.
  await manager.broker.request(user[column])
  manager.events.emit('auth:secured', eventBase(ctx, ctx.auth.guardName, user))
  ctx.app.log.info('auth.account_secured', { user_id: user.getKey(), ip: ctx.request.ip(), request_id: ctx.request.id })
  return { status: 'secured', user }
}
