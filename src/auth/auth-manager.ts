/**
 * @module auth/auth-manager
 * The app-wide part of auth (one per app, `app.make('auth')`): the checked `GUARDS` config, the
 * hasher and password policy, the credential verifier, the web logins, registration, password
 * resets, and the guard factories (`web` built in; ApiProvider adds `jwt`). Guards themselves are
 * built per request by `Auth`.
 */
import type { HttpContext } from '../http/context.js'
import type { Emitter } from '../events/emitter.js'
import type { Guard } from './guards/guard.js'
import { AuthConfigError } from './errors.js'
import type { AuthGuardsConfig, ResolvedAuthConfig } from './auth-config.js'
import type { CredentialVerifier } from './credential-verifier.js'
import type { LoginTokenRepository } from './guards/web/login-token-repository.js'
import type { PasswordBroker } from './password-broker.js'
import type { UserTokens } from './accounts/user-tokens.js'
import type { AuthInventory } from './inventory/index.js'
import type { DeviceRevocations } from './inventory/device-cookies.js'
import type { LoginChallenge } from './guards/base-guard.js'
import type { Registrar } from './registrar.js'
import type { Hasher, PasswordPolicy } from './hashing/index.js'
import type { AuthModel } from './user-providers/model-user-provider.js'
import type { Budget } from './throttle/budget.js'
import { DeviceRegistry, WebLoginDevices } from './accounts/devices.js'
import type { Knex } from 'knex'
import type { BudgetName } from './auth-config.js'
import type { SecondFactor, SecondFactorFailedEvent } from './login/types.js'

export type GuardFactory = (ctx: HttpContext, name: string) => Guard<any>

export interface AuthManagerDependencies {
  /** The app's default connection (its `db.manager`): where the auth tables live. */
  db: () => Knex
  /** `GUARDS` as written in config/auth.ts (undefined without one: the defaults apply). */
  config: AuthGuardsConfig | undefined
  resolved: ResolvedAuthConfig
  hasher: Hasher
  policy: PasswordPolicy
  verifier: CredentialVerifier
  tokens: LoginTokenRepository
  broker: PasswordBroker
  /** Single-use mailed links (verification, "This wasn't me"). */
  userTokens: UserTokens
  /** What authenticates a user, each kind ended by the revocations it names. */
  inventory: AuthInventory
  /** When each user's device cookies were revoked (the web guard checks its cookie against it). */
  deviceRevocations: DeviceRevocations
  registrar: Registrar
  events: Emitter
  /** The attempt budgets of `GUARDS.throttle`, sharing the throttle store. */
  budgets: Record<BudgetName, Budget>
}

/** The manager holds each of its dependencies under the same name, read-only. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AuthManager extends Readonly<AuthManagerDependencies> {}

export class AuthManager {
  /** The devices page's sources: the web logins built in; ApiProvider adds the API's token families. */
  readonly devices: DeviceRegistry
  readonly #factories = new Map<string, GuardFactory>()
  /**
   * Steps every guard's `attempt()` runs after a correct password and before the login, in order
   * (e.g. a second factor answering 401 `E_MFA_REQUIRED`). Empty by default.
   */
  readonly challenges: LoginChallenge[] = []
  /** The second factors of the features that are on, in list order (the `mfa` middleware asks them). */
  readonly secondFactors: SecondFactor[] = []
  /** The page of the login's second step, where `mfa` steps a login up; null with no second factor on. */
  secondStepPage: string | null = null
  /** The event a refused second-factor answer emits (the second step's `failedEvent`); null with no second factor on. */
  secondStepFailedEvent: SecondFactorFailedEvent | null = null

  /** Runs `challenges` for a user whose password was right: returns, or throws to hold the login back. */
  readonly challenge: LoginChallenge = async (ctx, guard, user) => {
    for (const step of this.challenges) await step(ctx, guard, user)
  }

  constructor(deps: AuthManagerDependencies) {
    Object.assign(this, deps)
    this.devices = new DeviceRegistry()
    this.devices.register(new WebLoginDevices(this.db, this.inventory))
  }

  /** Registers a guard driver under a name (`jwt`, ...). */
  extend(name: string, factory: GuardFactory): void {
    this.#factories.set(name, factory)
  }

  hasGuard(name: string): boolean {
    return this.#factories.has(name)
  }

  /** The guard names this app knows. */
  get guardNames(): string[] {
    return [...this.#factories.keys()]
  }

  /** The default guard's model (`GUARDS.web.model`). */
  get model(): AuthModel | any {
    return this.resolved.model
  }

  /** The default guard's name. */
  get defaultGuard(): string {
    return this.resolved.defaultGuard
  }

  createGuard(ctx: HttpContext, name: string): Guard<any> {
    const factory = this.#factories.get(name)
    if (!factory) {
      throw new AuthConfigError(`Unknown guard "${name}". Known guards: ${this.guardNames.join(', ')} (config/auth.ts; the jwt guard comes with ApiProvider).`)
    }
    return factory(ctx, name)
  }
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    auth: AuthManager
    'auth.manager': AuthManager
  }
}
