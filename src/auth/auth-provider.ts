/**
 * @module auth/auth-provider
 * Binds web authentication: the hasher (argon2id), the throttle store and the attempt budgets
 * of `GUARDS.throttle` (`auth.budgets`), the credential verifier,
 * the AuthManager (`auth`, built from `config/auth.ts` on first use) and `ctx.auth`; logs every
 * auth event; and, at boot, checks `GUARDS`, turns on the audit log (`GUARDS.audit`) and picks the
 * reset e-mail's mailable.
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
import { resolveAuthConfig } from './auth-config.js'
import { logAuthEvents } from './log-auth-events.js'
import { DefaultResetPassword } from './mail/default-reset-password.js'
import { Auth } from './auth.js'
import { configureAuthRoutes } from './auth-routes.js'
import { AuditLog } from './audit/audit-log.js'
import { db } from '../database/database-manager.js'
import type { Budget } from './throttle/budget.js'
import type { BudgetName } from './auth-config.js'

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
    app.bind('http.context.auth', (ctx: HttpContext) => new Auth(ctx, app.make('auth.manager')))
    logAuthEvents(app.events, app.log)
  }

  override async boot(): Promise<void> {
    const app = this.application
    const guards = app.config('auth')?.GUARDS
    if (!guards) return
    const config = resolveAuthConfig(guards, { requireModel: app.get('app.mode') === 'http' })
    app.make('hasher').maxWaitMs = config.hashingMaxWait
    configureAuthRoutes(config.features)
    if (config.audit.enabled) new AuditLog(() => db(), app.log).listen(app.events)
    const file = findModule(app.path('app/mailables/ResetPassword'))
    const mod = file ? await importAppModule(file, 'app/mailables/ResetPassword.ts') : {}
    app.bind('auth.reset_mailable', mod.ResetPassword ?? mod.default ?? DefaultResetPassword)
  }
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    hasher: Hasher
    'auth.throttle': LoginThrottle
    'auth.verifier': CredentialVerifier
    /** The attempt budgets of `GUARDS.throttle` (login, ip, account, register, reset). */
    'auth.budgets': Record<BudgetName, Budget>
  }
}
