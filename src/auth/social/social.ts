/**
 * @module auth/social/social
 * The `social` service (`auth.social`): the served providers and their drivers, starting a round
 * trip (state kept server-side, tied to the browser's `trowel_oauth` cookie), consuming its state
 * on the first callback, and the account rules of a finished round trip — keyed by `(provider,
 * subject)`, never by e-mail:
 * - a linked identity logs its user in;
 * - an account with the asserted address is linked automatically only when the provider is
 *   `trusted`, asserts the address verified and the account's own address is verified; otherwise a
 *   link-up waits (`link_minutes`) for a login to that account in this browser;
 * - no account: created only from a verified address (registration on); an unverified or missing
 *   address is asked for and confirmed by a mailed link first.
 */
import type { Knex } from 'knex'
import type { Application } from '../../foundation/application.js'
import { appUrl } from '../../foundation/config-files.js'
import type { HttpContext } from '../../http/context.js'
import type { Encrypter } from '../../support/encrypter.js'
import type { AuthManager } from '../auth-manager.js'
import { normalizeEmail } from '../email.js'
import { eventBase } from '../events.js'
import { isVerified } from '../accounts/verification.js'
import { sha256Hex } from '../tokens/index.js'
import { clientKey } from '../throttle/client-key.js'
import type { AuthUser } from '../types.js'
import { ModelUserProvider, type ModelUser } from '../user-providers/model-user-provider.js'
import type { SocialConfig, SocialProvider } from './config.js'
import { SocialDriver, type AuthorizationExtras, type RedirectSecrets, type SocialProfile } from './drivers.js'
import { SocialStore, isUniqueViolation, newSecret, type PendingRow } from './store.js'

/** The browser cookie a state is tied to (random, HttpOnly, Lax). */
export const OAUTH_COOKIE = 'trowel_oauth'
const COOKIE_SHAPE = /^[A-Za-z0-9_-]{43}$/

export type Intent = 'login' | 'connect' | 'confirm'

/** What a round trip carries besides its intent: the path after a login, the user it acts for, extra authorization parameters. */
export interface StartOptions {
  next?: string | null
  userId?: unknown
  extras?: AuthorizationExtras
}

/** What a finished round trip for a login comes to. */
export type LoginOutcome =
  | { kind: 'login'; user: ModelUser; identityId: number }
  | { kind: 'link'; secret: string }
  | { kind: 'email'; secret: string }
  | { kind: 'closed' }
  | { kind: 'throttled'; retryAfter: number }

export class Social {
  readonly store: SocialStore
  readonly #drivers = new Map<string, SocialDriver>()

  constructor(
    readonly app: Application,
    readonly manager: AuthManager,
    readonly config: SocialConfig,
  ) {
    this.store = new SocialStore(manager.db)
  }

  appUrl(): string {
    return appUrl(this.app)
  }

  /** The served providers, in config order. */
  providers(): SocialProvider[] {
    return [...this.config.providers.values()]
  }

  provider(name: unknown): SocialProvider | null {
    return typeof name === 'string' ? (this.config.providers.get(name) ?? null) : null
  }

  driver(provider: SocialProvider): SocialDriver {
    let driver = this.#drivers.get(provider.name)
    if (!driver) {
      driver = new SocialDriver(provider, `${this.appUrl()}/auth/${provider.name}/callback`)
      this.#drivers.set(provider.name, driver)
    }
    return driver
  }

  users(): ModelUserProvider {
    return new ModelUserProvider(this.manager.resolved.model!)
  }

  /** The browser's `trowel_oauth` value (set when absent). */
  browser(ctx: HttpContext): string {
    const current = ctx.request.cookie(OAUTH_COOKIE)
    if (typeof current === 'string' && COOKIE_SHAPE.test(current)) return current
    const fresh = newSecret()
    ctx.response.cookie(OAUTH_COOKIE, fresh, { httpOnly: true, sameSite: 'lax', maxAge: 24 * 3600 })
    return fresh
  }

  /** Whether `row` was made in this browser (its `trowel_oauth` cookie). */
  sameBrowser(ctx: HttpContext, row: PendingRow): boolean {
    const cookie = ctx.request.cookie(OAUTH_COOKIE)
    return row.browser_hash !== null && typeof cookie === 'string' && sha256Hex(cookie) === row.browser_hash
  }

  /** Starts a round trip: the provider's URL; the state row is stored first. */
  async start(ctx: HttpContext, provider: SocialProvider, intent: Intent, options: StartOptions = {}): Promise<string> {
    const driver = this.driver(provider)
    const secrets = await SocialDriver.secrets(driver.oidc)
    const url = await driver.authorizationUrl(secrets, options.extras)
    await this.store.putPending(
      secrets.state,
      { kind: 'state', provider: provider.name, intent, userId: options.userId ?? null, browser: this.browser(ctx), data: { verifier: secrets.verifier, nonce: secrets.nonce, next: options.next ?? null } },
      this.config.stateMinutes,
    )
    return url
  }

  /**
   * Consumes the callback's state (whatever happens next) and finishes the round trip: the
   * provider's profile and the state row, or null for any failure (logged with its reason).
   */
  async finish(ctx: HttpContext, provider: SocialProvider, params: URLSearchParams): Promise<{ profile: SocialProfile; state: PendingRow } | null> {
    const fail = (reason: string) => {
      this.app.log.info('auth.social_failed', { provider: provider.name, reason, ip: ctx.request.ip(), request_id: ctx.request.id })
      return null
    }
    const state = await this.store.takePending(params.get('state'), 'state')
    if (!state) return fail('unknown, used or expired state')
    if (state.provider !== provider.name) return fail('state of another provider')
    if (!this.sameBrowser(ctx, state)) return fail("another browser's state")
    if (params.has('error')) return fail(`provider error ${String(params.get('error')).slice(0, 64)}`)
    const secrets: RedirectSecrets = { state: String(params.get('state')), verifier: String(state.data.verifier ?? ''), nonce: typeof state.data.nonce === 'string' ? state.data.nonce : null }
    try {
      const profile = await this.driver(provider).finish(params, secrets, state.intent === 'confirm' && this.driver(provider).oidc ? { maxAge: 0 } : {})
      return { profile, state }
    } catch (error) {
      return fail(error instanceof Error ? error.message.slice(0, 200) : 'exchange failed')
    }
  }

  /** Provider tokens to keep (`store_tokens`), encrypted with APP_KEY; null otherwise. */
  tokens(provider: SocialProvider, profile: SocialProfile): { access: string | null; refresh: string | null } | null {
    if (!provider.storeTokens) return null
    const encrypter = this.app.make<Encrypter>('encrypter')
    const seal = (v: string | null, what: string) => (v ? encrypter.encrypt(v, `social_identities.${what}`) : null)
    return { access: seal(profile.accessToken, 'access_token'), refresh: seal(profile.refreshToken, 'refresh_token') }
  }

  /** The account rules for a login round trip (see the module comment). */
  async resolveLogin(ctx: HttpContext, provider: SocialProvider, profile: SocialProfile): Promise<LoginOutcome> {
    const linked = await this.loginOf(provider, profile)
    if (linked) return linked
    const address = profile.email ? normalizeEmail(profile.email) : null
    const existing = address ? await this.findUser(address) : null
    if (existing && address) {
      if (provider.trusted && profile.emailVerified && isVerified(existing)) {
        const result = await this.linkIdentity(ctx, existing, provider, profile)
        if (result.outcome !== 'taken') return { kind: 'login', user: existing, identityId: result.id! }
        return (await this.loginOf(provider, profile)) ?? { kind: 'closed' }
      }
      return { kind: 'link', secret: await this.pendingLink(ctx, provider, profile, existing.getKey()) }
    }
    if (!this.registers()) return { kind: 'closed' }
    if (!address || !profile.emailVerified) {
      const secret = newSecret()
      await this.store.putPending(secret, { kind: 'profile', provider: provider.name, intent: 'login', browser: this.browser(ctx), data: { subject: profile.subject, name: profile.name } }, this.config.stateMinutes)
      return { kind: 'email', secret }
    }
    const budget = this.manager.budgets.register
    const wait = await budget.take(budget.key(clientKey(ctx.request.ip())))
    if (wait !== null) return { kind: 'throttled', retryAfter: wait }
    return this.createAccount(ctx, provider, { ...profile, email: address })
  }

  /** The login of an identity already linked, or null. */
  async loginOf(provider: SocialProvider, profile: SocialProfile): Promise<LoginOutcome | null> {
    const identity = await this.store.findIdentity(provider.name, profile.subject)
    if (!identity) return null
    const user = (await this.users().findById(identity.user_id)) as ModelUser | null
    if (!user) return null
    await this.store.touch(Number(identity.id), this.tokens(provider, profile))
    return { kind: 'login', user, identityId: Number(identity.id) }
  }

  /**
   * Creates the account and its identity in one transaction. A concurrent callback that made the
   * same account first wins: this one logs into it when it holds the identity, else shows the
   * link page.
   */
  async createAccount(ctx: HttpContext, provider: SocialProvider, profile: SocialProfile & { email: string }): Promise<LoginOutcome> {
    const model = this.manager.resolved.model!
    const table = model.getTable()
    const column = model.authColumn ?? 'email'
    const now = new Date()
    let userId: unknown
    try {
      userId = await this.manager.db().transaction(async (trx: Knex.Transaction) => {
        const values: Record<string, unknown> = { name: (profile.name ?? profile.email.split('@')[0]).slice(0, 255), [column]: profile.email, password: null, created_at: now, updated_at: now }
        const migrated = this.manager.inventory.migrated
        await migrated.ready(trx)
        if (migrated.hasColumn(table, 'email_verified_at')) values.email_verified_at = now
        await trx(table).insert(values)
        const row = await trx(table).where(column, profile.email).first(model.getPrimaryKey())
        const id = row?.[model.getPrimaryKey()]
        const tokens = this.tokens(provider, profile)
        await trx('social_identities').insert({ user_id: id, provider: provider.name, subject: profile.subject, email: profile.email, access_token: tokens?.access ?? null, refresh_token: tokens?.refresh ?? null, created_at: now, last_used_at: now })
        return id
      })
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
      const linked = await this.loginOf(provider, profile)
      if (linked) return linked
      const existing = await this.findUser(profile.email)
      if (!existing) throw error
      return { kind: 'link', secret: await this.pendingLink(ctx, provider, profile, existing.getKey()) }
    }
    const user = (await this.users().findById(userId)) as ModelUser
    this.manager.events.emit('auth:registered', { ...eventBase(ctx, ctx.auth.guardName, user), method: 'social' })
    const identity = await this.store.findIdentity(provider.name, profile.subject)
    return { kind: 'login', user, identityId: Number(identity?.id) }
  }

  /** A link-up waiting for a login to `userId` in this browser: its secret (kept in the session). */
  async pendingLink(ctx: HttpContext, provider: SocialProvider, profile: SocialProfile, userId: unknown): Promise<string> {
    const secret = newSecret()
    await this.store.putPending(
      secret,
      { kind: 'link', provider: provider.name, intent: 'login', userId, browser: this.browser(ctx), data: { subject: profile.subject, email: profile.email, name: profile.name } },
      this.config.linkMinutes,
    )
    return secret
  }

  /** Links the identity to `user` and reports it (event, notice, audit). */
  async linkIdentity(ctx: HttpContext, user: AuthUser, provider: SocialProvider, profile: Pick<SocialProfile, 'subject' | 'email'> & Partial<SocialProfile>): Promise<{ outcome: 'linked' | 'exists' | 'taken'; id: number | null }> {
    const full = { accessToken: null, refreshToken: null, name: null, emailVerified: false, ...profile } as SocialProfile
    const result = await this.store.link(user.getKey(), provider.name, profile.subject, profile.email ? normalizeEmail(profile.email) : null, this.tokens(provider, full))
    if (result.outcome === 'linked') {
      this.manager.events.emit('auth:social_linked', { ...eventBase(ctx, ctx.auth.guardName, user), provider: provider.name, item: { kind: 'social_identities', id: String(result.id) } })
    }
    return result
  }

  async findUser(address: string): Promise<ModelUser | null> {
    return (await this.users().findForCredentials(address)) as ModelUser | null
  }

  /** Whether an unknown address may get an account (`registration` on). */
  registers(): boolean {
    return this.manager.resolved.features.has('registration')
  }
}
