/**
 * @module auth/social/connections
 * `/account/connections`: the served providers, connected or not, with each identity's address,
 * when it was linked and last used.
 * - `POST /account/connections/@provider` (CSRF, `verified`, `password.confirm`, the step-up) →
 *   302 to the provider with intent `connect`; the callback links the identity to the user who
 *   started it (never moving an identity of another user, never logging into it) and reports it.
 * - `POST /account/connections/@provider/disconnect` (`password.confirm`): refused (302 with a
 *   message, JSON 409 `E_CONFLICT`) when it would leave no way in — a password, a passkey, another
 *   identity, or with `email_login` a verified address — checked in one transaction that locks
 *   the user's row, so two disconnects at once cannot both pass.
 */
import type { Knex } from 'knex'
import type { HttpContext } from '../../http/context.js'
import { eventBase } from '../events.js'
import { isVerified } from '../accounts/verification.js'
import type { AuthUser } from '../types.js'
import { storedDate } from '../inventory/index.js'
import type { SocialProvider } from './config.js'
import type { SocialProfile } from './drivers.js'
import { HttpError } from '../../http/http-error.js'
import { failed, servedProvider, social, SOCIAL_MESSAGES, toProvider } from './forms.js'
import type { Social } from './social.js'
import { IDENTITIES_TABLE, type PendingRow } from './store.js'

export const CONNECTION_MESSAGES = {
  connected: (label: string) => `Your ${label} account is now connected.`,
  already: (label: string) => `Your ${label} account was already connected.`,
  taken: (label: string) => `This ${label} account is linked to another user: it was not connected.`,
  oneOnly: (label: string) => `You already have a ${label} account connected: disconnect it first.`,
  disconnected: (label: string) => `Your ${label} account was disconnected.`,
  notConnected: (label: string) => `No ${label} account is connected.`,
  lastWayIn: 'This is your only way to sign in: set a password or add a passkey before disconnecting it.',
} as const

function when(value: unknown): string | null {
  const at = storedDate(value)
  return at ? `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC` : null
}

/** The connect callback: links the identity to the user who started it. */
export async function connectCallback(ctx: HttpContext, service: Social, provider: SocialProvider, profile: SocialProfile, state: PendingRow): Promise<unknown> {
  const back = '/account/connections'
  const user = (await ctx.auth.check()) ? ctx.auth.user<AuthUser>() : null
  if (!user || String(user.getKey()) !== String(state.user_id)) return failed(ctx, SOCIAL_MESSAGES.failed, user ? back : '/login')
  const existing = await service.store.findIdentity(provider.name, profile.subject)
  if (existing && String(existing.user_id) !== String(user.getKey())) {
    ctx.session.flash('error', CONNECTION_MESSAGES.taken(provider.label))
    return ctx.response.redirect(back)
  }
  const result = await service.linkIdentity(ctx, user, provider, profile)
  const message = result.outcome === 'linked' ? CONNECTION_MESSAGES.connected(provider.label) : result.outcome === 'exists' ? CONNECTION_MESSAGES.already(provider.label) : CONNECTION_MESSAGES.oneOnly(provider.label)
  ctx.session.flash(result.outcome === 'taken' ? 'error' : 'success', message)
  return ctx.response.redirect(back)
}

/** Whether the user keeps a way in without `identityId` (read inside `trx`, the user's row locked). */
async function keepsWayIn(service: Social, trx: Knex.Transaction, user: AuthUser, identityId: number): Promise<boolean> {
  const model = service.manager.resolved.model!
  const row = await trx(model.getTable()).where(model.getPrimaryKey(), user.getKey() as string | number).forUpdate().first()
  if (!row) return false
  if (typeof row.password === 'string' && row.password !== '') return true
  const others = await trx(IDENTITIES_TABLE).where('user_id', user.getKey() as string | number).whereNot('id', identityId).count<{ n: number | string }[]>({ n: '*' })
  if (Number(others[0]?.n ?? 0) > 0) return true
  const migrated = service.manager.inventory.migrated
  await migrated.ready(trx)
  if (migrated.has('passkeys')) {
    const keys = await trx('passkeys').where('user_id', user.getKey() as string | number).count<{ n: number | string }[]>({ n: '*' })
    if (Number(keys[0]?.n ?? 0) > 0) return true
  }
  return service.manager.resolved.features.has('email_login') && isVerified(row)
}

export const ConnectionForms = {
  /** GET /account/connections */
  async index(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const user = ctx.auth.user<AuthUser>()!
    const identities = await service.store.identitiesOf(user.getKey())
    const rows = service.providers().map((p) => {
      const identity = identities.find((i) => i.provider === p.name)
      return { name: p.name, label: p.label, connected: Boolean(identity), email: identity?.email ?? null, linked: identity ? when(identity.created_at) : null, lastUsed: identity ? when(identity.last_used_at) : null }
    })
    if (ctx.request.wantsJson()) return { data: { connections: rows } }
    return ctx.view.render('auth/connections', { connections: rows })
  },

  /** POST /account/connections/@provider → the provider, intent connect. */
  async connect(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    const user = ctx.auth.user<AuthUser>()!
    return toProvider(ctx, service, provider, 'connect', { userId: user.getKey() }, '/account/connections')
  },

  /** POST /account/connections/@provider/disconnect */
  async disconnect(ctx: HttpContext): Promise<unknown> {
    const service = social(ctx)
    const provider = servedProvider(ctx)
    const user = ctx.auth.user<AuthUser>()!
    const outcome = await service.manager.db().transaction(async (trx) => {
      const identity = await trx(IDENTITIES_TABLE).where({ user_id: user.getKey() as string | number, provider: provider.name }).first()
      if (!identity) return 'none' as const
      if (!(await keepsWayIn(service, trx, user, Number(identity.id)))) return 'last' as const
      await trx(IDENTITIES_TABLE).where({ id: identity.id }).delete()
      return 'removed' as const
    })
    if (outcome === 'last') {
      if (ctx.request.wantsJson()) throw new HttpError(409, 'E_CONFLICT', CONNECTION_MESSAGES.lastWayIn)
      ctx.session.flash('error', CONNECTION_MESSAGES.lastWayIn)
      return ctx.response.redirect('/account/connections')
    }
    if (outcome === 'removed') service.manager.events.emit('auth:social_unlinked', { ...eventBase(ctx, ctx.auth.guardName, user), provider: provider.name })
    const message = outcome === 'removed' ? CONNECTION_MESSAGES.disconnected(provider.label) : CONNECTION_MESSAGES.notConnected(provider.label)
    if (ctx.request.wantsJson()) return { data: { provider: provider.name, connected: false, redirect: '/account/connections' } }
    ctx.session.flash(outcome === 'removed' ? 'success' : 'error', message)
    return ctx.response.redirect('/account/connections')
  },
}
