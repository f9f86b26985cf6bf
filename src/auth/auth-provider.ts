/**
 * @module auth/auth-provider
 * Binds web authentication: the hasher (argon2id), the throttle store and the attempt budgets
 * of `GUARDS.throttle` (`auth.budgets`), the credential verifier,
 * the AuthManager (`auth`, built from `config/auth.ts` on first use) and `ctx.auth`; logs every
 * auth event; runs every feature module's `register`; and, at boot, checks `GUARDS` (bound as
 * `auth.config`, which `Auth.routes()` reads when the routes are mounted), boots the features
 * that are on (features/registry: middleware, `install`, login challenge), turns on the audit log
 * (`GUARDS.audit`) and picks the reset e-mail's mailable. The feature modules are the app's
 * `auth.features`, bound by the composition before this provider registers.
 */
import { ServiceProvider } from '../foundation/service-provider.js'
import { importAppModule } from '../foundation/app-modules.js'
import { findModule } from '../foundation/module-finder.js'
import type { HttpContext } from '../http/context.js'
import { Hasher } from './hashing/index.js'
import { LoginThrottle } from './throttle/index.js'
import { createThrottleStore } from './throttle/create-throttle-store.js'
import { CredentialVerifier } from './credential-verifier.js'
import { createAuthManager, createBudgets } from './create-auth-manager.js'
import { resolveAuthConfig, type ResolvedAuthConfig } from './auth-config.js'
import { logAuthEvents } from './log-auth-events.js'
import { DefaultResetPassword } from './mail/default-reset-password.js'
import { DefaultVerifyEmail } from './mail/default-verify-email.js'
import { DefaultEmailChangeNotice } from './mail/default-email-change-notice.js'
import { Auth } from './auth.js'
import { installSecurityNotifications } from './accounts/security-notifications.js'
import { VerifiedMiddleware } from './middleware/verified-middleware.js'
import { PasswordConfirmMiddleware } from './middleware/password-confirm-middleware.js'
import { MfaRecentMiddleware } from './middleware/mfa-recent-middleware.js'
import { MfaMiddleware } from './middleware/mfa-middleware.js'
import { featuresOf, installFeatures, registerFeatures } from './features/registry.js'
import { AuditLog } from './audit/audit-log.js'
import { AuthChallenges } from './challenges/auth-challenges.js'
import { connectionOf } from '../database/app-database.js'
import type { Budget } from './throttle/budget.js'
import type { BudgetName } from './auth-config.js'
import { installGate } from './authorization/gate.js'
import { CanMiddleware } from './authorization/can-middleware.js'
import './authorization/context-authorize.js'

export class AuthProvider extends ServiceProvider {
  static providerName = 'AuthProvider'

  override register(): void {
    const app = this.application
    app.singleton('hasher', () => new Hasher())
    app.singleton('auth.throttle', () => new LoginThrottle(createThrottleStore(app)))
    app.singleton('auth.budgets', () => createBudgets(app))
    app.singleton('auth.verifier', () => new CredentialVerifier(app.make('hasher'), app.make('auth.budgets'), app.log))
    app.singleton('auth.manager', () => createAuthManager(app))
    app.singleton('auth', () => app.make('auth.manager'))
    app.singleton('auth.challenges', () => new AuthChallenges(() => connectionOf(app)))
    app.bind('http.context.auth', (ctx: HttpContext) => new Auth(ctx, app.make('auth.manager')))
    const features = featuresOf(app)
    logAuthEvents(app.events, app.log, features)
    registerFeatures(app, features)
    // Gates and policies (authorization): this app's registry; `Gate` speaks for it from now on.
    installGate(app)
  }

  override async boot(): Promise<void> {
    const app = this.application
    const guards = app.config('auth')?.GUARDS
    if (!guards) return
    const features = featuresOf(app)
    const config = resolveAuthConfig(guards, { requireModel: app.get('app.mode') === 'http', features })
    app.bind('auth.config', config)
    app.make('hasher').maxWaitMs = config.hashingMaxWait
    // The account pages name these stacks; a Kernel.ts written before them (or pasted from an older
    // guide) still works. An app's own entry of the same name wins.
    const stacks = app.kernel?.routeMiddleware
    if (stacks) {
      stacks.verified ??= [VerifiedMiddleware]
      stacks['password.confirm'] ??= [PasswordConfirmMiddleware]
      stacks.mfa ??= [MfaMiddleware]
      stacks['mfa.recent'] ??= [MfaRecentMiddleware]
      stacks.can ??= [CanMiddleware]
    }
    await installFeatures(app, config, features)
    if (app.get('app.mode') === 'http') {
      // Which tables the app has, read once the app is complete (the API adds its kinds in its
      // boot): the inventory, pruning and the audit log ask no schema question at request time.
      // A database that does not answer now is asked on first use instead.
      const migrated = app.make('auth.manager').inventory.migrated
      const load = () => migrated.load().catch((error: unknown) => app.log.warn('auth.tables_unread', { error: error instanceof Error ? error.message : String(error) }))
      app.bind('app.booted.hooks', [...(app.get<(() => unknown)[]>('app.booted.hooks') ?? []), load])
    }
    if (config.audit.enabled) {
      const audit = new AuditLog(() => connectionOf(app), app.log, app.make('auth.manager').inventory.migrated)
      audit.listen(app.events, features)
      // Before the database closes (hooks run newest first): a command's last events are written.
      app.onShutdown(() => audit.flush())
    }
    const file = findModule(app.path('app/mailables/ResetPassword'))
    const mod = file ? await importAppModule(file, 'app/mailables/ResetPassword.ts') : {}
    app.bind('auth.reset_mailable', mod.ResetPassword ?? mod.default ?? DefaultResetPassword)
    // The security e-mails of GUARDS.notifications (app/mailables/SecurityNotice.ts, else the default).
    await installSecurityNotifications(app, config)
    // The verification e-mail and the e-mail change notice: the app's own, else the defaults.
    for (const [name, key, fallback] of [['VerifyEmail', 'auth.verify_mailable', DefaultVerifyEmail], ['EmailChangedNotice', 'auth.email_change_mailable', DefaultEmailChangeNotice]] as const) {
      const found = findModule(app.path(`app/mailables/${name}`))
      const own = found ? await importAppModule(found, `app/mailables/${name}.ts`) : {}
      app.bind(key, own[name] ?? own.default ?? fallback)
    }
  }
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    hasher: Hasher
    'auth.throttle': LoginThrottle
    'auth.verifier': CredentialVerifier
    /** The attempt budgets of `GUARDS.throttle` (login, ip, account, register, reset). */
    'auth.budgets': Record<BudgetName, Budget>
    /** Single-use secrets of unfinished sign-in steps (passkey ceremonies, the API's mfa_token). */
    'auth.challenges': AuthChallenges
    /** `GUARDS` of config/auth.ts, checked, once AuthProvider has booted (absent when the app has no GUARDS). */
    'auth.config': ResolvedAuthConfig
  }
}
