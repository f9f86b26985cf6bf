/**
 * @module auth/create-auth-manager
 * Assembles the AuthManager from `GUARDS` and the app's services: the web logins, the password
 * broker (mail through the mailable bound at `auth.reset_mailable`), registration, and the `web`
 * guard's factory.
 */
import { appUrl } from '../foundation/config-files.js'
import type { Application } from '../foundation/application.js'
import { connectionOf, databaseOf } from '../database/app-database.js'
import type { Mailer } from '../mail/index.js'
import { PasswordPolicy } from './hashing/index.js'
import { LoginTokenRepository } from './guards/web/login-token-repository.js'
import { WebGuard } from './guards/web/guard.js'
import { RememberTokenRepository } from './guards/web/remember-token-repository.js'
import { PasswordBroker } from './password-broker.js'
import { Registrar } from './registrar.js'
import { UserTokens } from './accounts/user-tokens.js'
import { liftPasswordLock } from './accounts/password-lock.js'
import { AuthInventory, usersTableOf } from './inventory/index.js'
import { registerAuthKinds } from './inventory/auth-kinds.js'
import { AuthManager } from './auth-manager.js'
import { resolveAuthConfig } from './auth-config.js'
import { ModelUserProvider } from './user-providers/model-user-provider.js'
import { Budget } from './throttle/budget.js'
import { DEFAULT_BUDGETS, type BudgetLimit, type BudgetName, type BudgetValue } from './auth-config.js'
import { featureBudgets, featuresOf } from './features/registry.js'

export function createAuthManager(app: Application): AuthManager {
  const config = app.config('auth')?.GUARDS
  const features = featuresOf(app)
  const resolved = resolveAuthConfig(config, { requireModel: false, features })
  const hasher = app.make('hasher')
  const db = () => connectionOf(app)
  // The users table and user_tokens: later migrations add columns to them (the password lock, link details).
  const inventory = new AuthInventory(db, { columnTables: () => [usersTableOf(resolved.model).table, 'user_tokens'] })
  const deviceRevocations = registerAuthKinds(inventory, { db, users: () => usersTableOf(resolved.model), resetTable: resolved.passwordResetTable })
  // Every feature's kinds, on or not: what was created while it was on must still end.
  for (const feature of features) for (const kind of feature.inventory?.(inventory, resolved) ?? []) inventory.register(kind)
  const tokens = new LoginTokenRepository(() => databaseOf(app), { table: 'login_tokens', lifetime: resolved.loginLifetime, idleTimeout: resolved.idleTimeout })
  // "Remember me" only when the feature is on: off, a trowel_remember cookie is never read.
  const remember = resolved.features.has('remember_me') ? new RememberTokenRepository(db, { lifetime: resolved.rememberLifetime, loginTable: 'login_tokens', reuseWindowSeconds: resolved.rememberReuseWindow }) : null
  const broker = new PasswordBroker({
    db,
    model: resolved.model,
    table: resolved.passwordResetTable,
    expiration: resolved.passwordResetExpiration,
    appUrl: appUrl(app),
    hash: (password) => hasher.hash(password),
    revokeAllLogins: async (userId, trx) => {
      await inventory.revokeAll(userId, { reason: 'password_reset', trx })
    },
    // A new password: the lock of "This wasn't me" is lifted.
    onReset: async (userId, trx) => {
      if (resolved.model) await liftPasswordLock(resolved.model, userId, inventory.migrated, trx)
    },
    send: async (user, url, expiresIn) => {
      const MailableClass = app.make('auth.reset_mailable')
      await app.make<Mailer>('mailer').send(new MailableClass(user, url, expiresIn))
      app.log.info('auth.reset_mail_sent', { user_id: user.getKey() })
    },
    onSendError: (error, user) => app.log.error('auth.reset_mail_failed', { user_id: user.getKey(), error: (error as Error).message }),
  })
  const manager = new AuthManager({
    db,
    config,
    resolved,
    hasher,
    policy: new PasswordPolicy(),
    verifier: app.make('auth.verifier'),
    tokens,
    broker,
    userTokens: new UserTokens(db, inventory.migrated),
    inventory,
    deviceRevocations,
    registrar: new Registrar(resolved.model, hasher),
    events: app.events,
    budgets: app.make('auth.budgets'),
  })
  const providers = new Map<string, ModelUserProvider>()
  const loginSessionKeys = features.flatMap((feature) => feature.loginSessionKeys ?? [])
  manager.extend('web', (ctx, name) => {
    let provider = providers.get(name)
    if (!provider) {
      provider = new ModelUserProvider(resolved.modelFor(name)!)
      providers.set(name, provider)
    }
    return new WebGuard(name, ctx, { provider, verifier: manager.verifier, tokens, remember, devices: deviceRevocations, events: app.events, challenge: manager.challenge, loginSessionKeys })
  })
  return manager
}

/**
 * The attempt budgets of `GUARDS.throttle` (defaults when config/auth.ts has no GUARDS), all on
 * the throttle store (`app.make('auth.throttle').store`). Bound as `auth.budgets`: the credential
 * verifier and the AuthManager share them.
 */
export function createBudgets(app: Application): Record<BudgetName, Budget> {
  const guards = app.config('auth')?.GUARDS
  const features = featuresOf(app)
  const limits: Readonly<Record<string, BudgetValue>> = guards ? resolveAuthConfig(guards, { requireModel: false, features }).throttle : { ...DEFAULT_BUDGETS, ...featureBudgets(features) }
  const store = app.make('auth.throttle').store
  // One Budget per budget of one limit; a feature reads its lists (each limit its own window) itself.
  const entries = Object.entries(limits).flatMap(([name, limit]) => (Array.isArray(limit) ? [] : [[name, new Budget(name, store, limit as BudgetLimit | null)] as const]))
  return Object.fromEntries(entries) as Record<BudgetName, Budget>
}
