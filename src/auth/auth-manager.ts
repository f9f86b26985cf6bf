/**
 * @module auth/auth-manager
 * The app-wide part of auth (one per app): the config of `config/auth.ts`, the hasher, the
 * throttle, the credential verifier, the login-token repository, the password broker, and the
 * guard factories (`web` built in; ApiProvider adds `jwt`). Guards themselves are per request.
 */
import type { HttpContext } from '../http/context.js'
import type { Guard } from './guards/guard.js'
import { AuthConfigError } from './errors.js'
import type { CredentialVerifier } from './credential-verifier.js'
import type { LoginTokenRepository } from './login-token-repository.js'
import type { PasswordBroker } from './password-broker.js'
import type { Hasher, PasswordPolicy } from './hashing/index.js'

export type GuardFactory = (ctx: HttpContext, name: string) => Guard

export interface AuthGuardsConfig {
  default: string
  password_reset_table?: string
  password_reset_expiration?: number | null
  [guard: string]: unknown
}

export class AuthManager {
  readonly config: AuthGuardsConfig
  readonly hasher: Hasher
  readonly policy: PasswordPolicy
  readonly verifier: CredentialVerifier
  readonly tokens: LoginTokenRepository
  readonly broker: PasswordBroker
  readonly #factories = new Map<string, GuardFactory>()

  constructor(deps: {
    config: AuthGuardsConfig
    hasher: Hasher
    policy: PasswordPolicy
    verifier: CredentialVerifier
    tokens: LoginTokenRepository
    broker: PasswordBroker
  }) {
    this.config = deps.config
    this.hasher = deps.hasher
    this.policy = deps.policy
    this.verifier = deps.verifier
    this.tokens = deps.tokens
    this.broker = deps.broker
  }

  /** Registers a guard driver under a name (`jwt`, ...). */
  extend(name: string, factory: GuardFactory): void {
    this.#factories.set(name, factory)
  }

  hasGuard(name: string): boolean {
    return this.#factories.has(name)
  }

  /** The model of the default web guard (`GUARDS.web.model`). */
  get model(): any {
    const web = this.config[this.config.default] as { model?: unknown } | undefined
    return web?.model
  }

  createGuard(ctx: HttpContext, name: string): Guard {
    const factory = this.#factories.get(name)
    if (!factory) {
      throw new AuthConfigError(`Unknown guard "${name}". Known guards: ${[...this.#factories.keys()].join(', ')} (config/auth.ts; the jwt guard comes with ApiProvider).`)
    }
    return factory(ctx, name)
  }
}
