/**
 * @module auth/authorization/gate
 * `Gate`, the facade an app defines its abilities with (`import { Gate } from 'trowel/auth'`):
 * `Gate.define(ability, (user, organization, ...args) => boolean)` and
 * `Gate.policy(Model, Policy)`. Every application has its own `GateRegistry` (`auth.gate` in the
 * container); the facade speaks for the application that was created last, which is the one whose
 * providers are booting when `AuthorizationProvider.boot()` calls it. A request always asks its own
 * application's registry (`ctx.app`), so several apps in one process never share a gate.
 */
import type { Application } from '../../foundation/application.js'
import { FrameworkError } from '../../foundation/framework-error.js'
import { forbidden } from './errors.js'
import type { AuthUser } from '../types.js'
import { GateRegistry } from './gate-registry.js'
import type { AbilitySource, GateCheck, GateOptions, ModelClass, OrganizationRecord, PolicyClass } from './types.js'

let current: GateRegistry | null = null

/** Binds `auth.gate` for `app` and makes the facade speak for it. */
export function installGate(app: Application): GateRegistry {
  const registry = new GateRegistry(app)
  app.bind('auth.gate', registry)
  current = registry
  return registry
}

/** `app`'s registry (one is made when the app has none, e.g. an app booted without AuthProvider). */
export function gateOf(app: Application): GateRegistry {
  return app.has('auth.gate') ? app.make<GateRegistry>('auth.gate') : installGate(app)
}

/**
 * Role abilities for `can:` and argument-less `can()`: `source(ctx)` answers the current
 * membership's abilities, or null when there is none (registered by the organisations feature).
 */
export function registerAbilitySource(app: Application, source: AbilitySource): void {
  gateOf(app).addAbilitySource(source)
}

function registry(): GateRegistry {
  if (!current) throw new FrameworkError('E_NO_APP', 'Gate is used before an app was created; define gates in a provider\'s boot().')
  return current
}

/** What `Gate.forUser(user)` answers: questions about a user outside a request (jobs, tests). */
export interface UserGate {
  can(ability: string, ...args: unknown[]): Promise<boolean>
  authorize(ability: string, ...args: unknown[]): Promise<void>
}

export const Gate = {
  /** Defines (or replaces) `ability`'s gate: `(user, organization, ...args) => boolean | Promise<boolean>`. */
  define<User = any>(ability: string, check: GateCheck<User>, options?: GateOptions): void {
    registry().define(ability, check, options)
  },
  /** Registers a policy for a model: its methods, named after abilities, decide for that model's instances. */
  policy(model: ModelClass, policy: PolicyClass): void {
    registry().policy(model, policy)
  },
  /** True when a gate is defined for `ability`. */
  has(ability: string): boolean {
    return registry().has(ability)
  },
  /**
   * Questions about `user` (null: a guest) outside a request, e.g. in a test or a job. No request
   * means no role abilities: only gates and policies answer.
   */
  forUser(user: AuthUser | null, organization: OrganizationRecord | null = null): UserGate {
    const gates = registry()
    const can = (ability: string, ...args: unknown[]): Promise<boolean> => gates.allows({ user, organization }, ability, args)
    return {
      can,
      async authorize(ability: string, ...args: unknown[]): Promise<void> {
        if (!(await can(ability, ...args))) throw forbidden()
      },
    }
  },
}

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    /** The application's gates, policies and role-ability sources. */
    'auth.gate': GateRegistry
  }
}
