/**
 * @module api/personal-tokens/token-forms
 * The personal access tokens page, served by `Api.routes()` in the `web` stack behind `auth`:
 * - `GET /account/tokens` (`index`): the create form, the user's tokens (name, abilities, created,
 *   last used, expires) with a revoke button each, and — once, right after creating one — the new
 *   token's value.
 * - `POST /account/tokens` (`store`, behind a verified address, `password.confirm` and
 *   `mfa.recent`): `name`, `abilities` (a comma-separated list, or checkboxes when
 *   `DRIVERS.jwt.abilities` lists the app's abilities), `expires` (days, or `none`; absent: 90
 *   days, see token-expiry). The new value travels to the next page view in the session's flash
 *   data, encrypted with APP_KEY, and is gone after it: a reload no longer shows it. Only its
 *   SHA-256 is stored. Emits `auth:token_created` (with `item`), whose notice mails the owner a
 *   "This wasn't me" link that removes the token.
 * - `POST /account/tokens/@id/revoke` (`revoke`): deletes one of the user's own tokens; another
 *   user's (or an unknown) id is a 404.
 * - `POST /account/tokens/revoke-all` (`revokeAll`): deletes every token of the user.
 * JSON clients get JSON (`store`: 201 with the value in `data.token`; `revokeAll`: 200 with the
 * count).
 * The page is the template `auth/tokens.html`: the app's copy (written by `craft auth`) when it
 * has one, else the framework's.
 */
import type { HttpContext } from '../../http/context.js'
import { answerData } from '../../session/json-forms.js'
import { NotFoundError, ValidationError } from '../../http/errors.js'
import { FrameworkError } from '../../foundation/framework-error.js'
import { eventBase } from '../../auth/events.js'
import type { CookieJar } from '../../http/cookie-jar.js'
import { refererPath } from '../../http/response.js'
import { normalizeAbilities } from './abilities.js'
import { personalTokenOptions } from './options.js'
import { driverSettings } from '../api-config.js'
import { normalizeName, PERSONAL_TOKENS_TABLE, type PersonalToken, type PersonalTokenRepository } from './repository.js'
import { issuePersonalToken, personalEventDetail, PERSONAL_TOKENS_KIND } from './issue.js'
import { DEFAULT_EXPIRY_DAYS, EXPIRY_CHOICES, formExpiryMinutes } from './token-expiry.js'
import { needsVerification } from './verified-address.js'
import { refuseUnverified } from '../../auth/middleware/verified-middleware.js'
import { requireRecentSecondFactor } from '../../auth/middleware/mfa-recent-middleware.js'

/** Flash key of the new token's value (encrypted with APP_KEY). */
const NEW_TOKEN_FLASH = 'personal_token.new'
/** A user can hold this many tokens at once. */
export const MAX_TOKENS_PER_USER = 100
/** The form's preselected expiry: 90 days ("never" is a choice the user has to make). */
const DEFAULT_EXPIRY = String(DEFAULT_EXPIRY_DAYS)

export const TOKEN_MESSAGES = {
  created: 'Token created. Copy it now: it will not be shown again.',
  revoked: 'Token revoked.',
  revokedAll: (count: number) => (count === 1 ? '1 token revoked.' : `${count} tokens revoked.`),
  tooMany: `You have ${MAX_TOKENS_PER_USER} tokens already; revoke one first.`,
  unknownAbility: (name: string) => `"${name}" is not one of this app's abilities.`,
  badExpiry: 'Choose an expiry.',
} as const

function repository(ctx: HttpContext): PersonalTokenRepository {
  return ctx.app.make('api.personal_tokens')
}

/** The app's abilities (`DRIVERS.jwt.abilities` in config/api.ts, checked at boot), when it lists them. */
function knownAbilities(ctx: HttpContext): readonly string[] | null {
  return personalTokenOptions(driverSettings(ctx.app)).abilities
}

/** A date as the account pages show it: `2025-01-31 14:05 UTC`. */
function when(at: Date | null, none: string): string {
  return at ? `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC` : none
}

function jsonOf(token: PersonalToken): Record<string, unknown> {
  return {
    id: Number(token.id),
    name: token.name,
    abilities: token.abilities,
    created_at: token.createdAt,
    last_used_at: token.lastUsedAt,
    expires_at: token.expiresAt,
  }
}

/**
 * Runs `fn`; when it fails and the app has no `personal_access_tokens` table (its migrated
 * tables, read at boot: no schema query), the error says which migration to run.
 */
async function withTable<T>(ctx: HttpContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    let missing = false
    try {
      const migrated = ctx.auth.manager.inventory.migrated
      await migrated.ready()
      missing = !migrated.has(PERSONAL_TOKENS_TABLE)
    } catch {
      // The database itself is the problem: the original error says so.
    }
    if (!missing) throw error
    throw new FrameworkError(
      'E_PERSONAL_TOKENS_TABLE',
      'The personal_access_tokens table does not exist: run "node craft migration create_personal_access_tokens_table" (craft api:install writes it too), then "node craft migrate".',
    )
  }
}

function cookies(ctx: HttpContext): CookieJar {
  return ctx.app.make('cookies')
}

export const PersonalTokenForms = {
  /** GET /account/tokens. */
  async index(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const tokens = await withTable(ctx, () => repository(ctx).list(user.getKey()))
    ctx.response.header('Cache-Control', 'no-store')
    if (ctx.request.wantsJson()) return { data: tokens.map(jsonOf) }
    const packed = ctx.hasSession ? ctx.session.getFlash<unknown>(NEW_TOKEN_FLASH) : undefined
    const newToken = typeof packed === 'string' ? (cookies(ctx).unpack(NEW_TOKEN_FLASH, packed) ?? null) : null
    const now = Date.now()
    const rows = tokens.map((t) => ({
      id: t.id,
      name: t.name,
      abilities: t.abilities,
      created: when(t.createdAt, '—'),
      createdIso: t.createdAt?.toISOString() ?? '',
      lastUsed: when(t.lastUsedAt, 'Never'),
      lastUsedIso: t.lastUsedAt?.toISOString() ?? '',
      expires: when(t.expiresAt, 'Never'),
      expiresIso: t.expiresAt?.toISOString() ?? '',
      expired: t.expiresAt !== null && t.expiresAt.getTime() <= now,
    }))
    return ctx.view.render('auth/tokens', {
      user,
      tokens: rows,
      new_token: newToken,
      known_abilities: knownAbilities(ctx),
      // With e-mail verification on, an unverified user sees their tokens (and can revoke them)
      // but is asked to verify before creating one.
      must_verify: needsVerification(ctx, user),
      expiry_choices: EXPIRY_CHOICES,
      default_expiry: DEFAULT_EXPIRY,
    })
  },

  /** POST /account/tokens. */
  async store(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    // The route's middleware ask for these first; checked here too, whatever an app's stacks do.
    const refused = refuseUnverified(ctx, user) ?? (await requireRecentSecondFactor(ctx))
    if (refused !== undefined) return refused
    const { request } = ctx
    const errors: Record<string, string[]> = {}
    let name = ''
    try {
      name = normalizeName(request.post('name'))
    } catch (error) {
      errors.name = [(error as Error).message]
    }
    let abilities: string[] = []
    try {
      const raw = request.post('abilities') ?? request.post('abilities[]')
      abilities = normalizeAbilities(raw)
      const known = knownAbilities(ctx)
      const unknown = known ? abilities.find((a) => !known.includes(a)) : undefined
      if (unknown !== undefined) errors.abilities = [TOKEN_MESSAGES.unknownAbility(unknown)]
    } catch (error) {
      errors.abilities = [(error as Error).message]
    }
    let expiresIn: number | null = null
    try {
      expiresIn = formExpiryMinutes(request.post('expires'))
    } catch {
      errors.expires = [TOKEN_MESSAGES.badExpiry]
    }
    if (Object.keys(errors).length === 0) {
      const held = await withTable(ctx, () => repository(ctx).list(user.getKey()))
      if (held.length >= MAX_TOKENS_PER_USER) errors.name = [TOKEN_MESSAGES.tooMany]
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors, undefined, { back: '/account/tokens' })

    const created = await withTable(ctx, () => issuePersonalToken(repository(ctx), user, name, { abilities, expiresIn }, { ctx }))
    // A way in was added from a session: the owner is mailed (token_created), and the notice's
    // "This wasn't me" removes this token (`item`).
    ctx.app.events.emit('auth:token_created', { ...eventBase(ctx, 'web', user), ...personalEventDetail(created), item: { kind: PERSONAL_TOKENS_KIND, id: created.id } })
    ctx.response.header('Cache-Control', 'no-store')
    if (request.wantsJson()) {
      ctx.response.status(201)
      return { data: { ...jsonOf(created), token: created.token }, message: TOKEN_MESSAGES.created }
    }
    ctx.session.flash(NEW_TOKEN_FLASH, cookies(ctx).pack(NEW_TOKEN_FLASH, created.token, 'encrypted'))
    ctx.session.flash('success', TOKEN_MESSAGES.created)
    return ctx.response.redirect('/account/tokens')
  },

  /** POST /account/tokens/@id/revoke. */
  async revoke(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const revoked = await withTable(ctx, () => repository(ctx).revoke(user.getKey(), String(ctx.params.id ?? '')))
    if (!revoked) throw new NotFoundError()
    ctx.app.events.emit('auth:token_revoked', { ...eventBase(ctx, 'jwt', user), userId: revoked.userId, ...personalEventDetail(revoked) })
    ctx.session.flash('success', TOKEN_MESSAGES.revoked)
    return ctx.response.redirect('/account/tokens')
  },

  /** POST /account/tokens/revoke-all: every token of the user ends; JSON 200 with the count, else back. */
  async revokeAll(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const count = await withTable(ctx, () => repository(ctx).revokeAll(user.getKey()))
    if (count > 0) ctx.app.events.emit('auth:token_revoked', { ...eventBase(ctx, 'jwt', user), userId: String(user.getKey()), kind: 'personal', name: '*', count })
    const message = TOKEN_MESSAGES.revokedAll(count)
    answerData(ctx, { revoked: count })
    ctx.session.flash('success', message)
    return ctx.response.redirect(refererPath(ctx.request.header('referer')) ?? '/account/tokens')
  },
}
