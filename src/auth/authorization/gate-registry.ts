/**
 * @module auth/authorization/gate-registry
 * One application's abilities: gates (`define`), policies (`policy`) and the sources of role
 * abilities (`addAbilitySource`). It decides, in this order:
 * 1. a policy, when the first argument is an instance (or the class) of a model that has one and
 *    the policy has a method for the ability (its `before`, when present, may decide first);
 * 2. the gate defined for the ability;
 * 3. with no argument and a request at hand, the current membership's role abilities
 *    (`*` covers all), so `ctx.authorize('members:invite')` and `can:members:invite` agree;
 * 4. otherwise: denied. An unknown ability is never allowed.
 * Only `true` allows. A guest is denied without calling anything, unless the gate was defined
 * with `{ guests: true }` (then it is called with a null user).
 */
import type { HttpContext } from '../../http/context.js'
import { FrameworkError } from '../../foundation/framework-error.js'
import type { AbilitySource, GateCheck, GateOptions, GateSubject, ModelClass, PolicyClass } from './types.js'

interface DefinedGate {
  check: GateCheck
  guests: boolean
}

/** The method of `policy` for `ability` (`update`, or `forceDelete` for `force-delete`), or null. */
export function policyMethod(policy: object, ability: string): ((...args: unknown[]) => unknown) | null {
  const camel = ability.replace(/[^A-Za-z0-9]+([A-Za-z0-9])/g, (_m, c: string) => c.toUpperCase())
  for (const name of new Set([ability, camel])) {
    if (name === 'constructor' || name === 'before') continue
    // Only methods the policy itself declares: never Object.prototype's (`toString`, `__proto__`).
    for (let proto = Object.getPrototypeOf(policy); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      const own = Object.getOwnPropertyDescriptor(proto, name)
      if (own && typeof own.value === 'function') return own.value as (...args: unknown[]) => unknown
    }
    const field = Object.getOwnPropertyDescriptor(policy, name)
    if (field && typeof field.value === 'function') return field.value as (...args: unknown[]) => unknown
  }
  return null
}

export class GateRegistry {
  readonly #gates = new Map<string, DefinedGate>()
  readonly #policies = new Map<unknown, PolicyClass>()
  readonly #instances = new Map<PolicyClass, object>()
  readonly #sources: AbilitySource[] = []
  readonly #roles = new WeakMap<HttpContext, { organization: unknown; found: Promise<readonly string[] | null> }>()
  readonly #policyArgs: unknown[]

  /** `policyArgs` are given to each policy's constructor (the application). */
  constructor(...policyArgs: unknown[]) {
    this.#policyArgs = policyArgs
  }

  /** Defines (or replaces) the gate of `ability`. */
  define(ability: string, check: GateCheck, options: GateOptions = {}): this {
    if (typeof ability !== 'string' || ability.trim() === '') {
      throw new FrameworkError('E_GATE_INVALID', 'Gate.define needs an ability name, e.g. Gate.define("posts:publish", (user, organization) => ...).')
    }
    if (typeof check !== 'function') throw new FrameworkError('E_GATE_INVALID', `Gate.define("${ability}"): the check must be a function (user, organization, ...args) => boolean.`)
    this.#gates.set(ability, { check, guests: options.guests === true })
    return this
  }

  /** Registers `policy` for `model` (and its subclasses without a policy of their own). */
  policy(model: ModelClass, policy: PolicyClass): this {
    if (typeof model !== 'function') throw new FrameworkError('E_GATE_INVALID', 'Gate.policy needs a model class, e.g. Gate.policy(Post, PostPolicy).')
    if (typeof policy !== 'function') throw new FrameworkError('E_GATE_INVALID', `Gate.policy(${model.name}, ...): the policy must be a class.`)
    this.#policies.set(model, policy)
    this.#instances.delete(policy)
    return this
  }

  /** True when a gate is defined for `ability`. */
  has(ability: string): boolean {
    return this.#gates.has(ability)
  }

  /** Adds a source of role abilities (the organisations feature registers one). */
  addAbilitySource(source: AbilitySource): void {
    if (typeof source !== 'function') throw new FrameworkError('E_GATE_INVALID', 'registerAbilitySource needs a function (ctx) => Promise<string[] | null>.')
    this.#sources.push(source)
  }

  /**
   * The role abilities of the request (every source's, merged), null when no source knows a
   * membership. Read once per request and current organisation (read again if `ctx.organization`
   * changes, e.g. set by the `org` middleware after an earlier question).
   */
  roleAbilities(ctx: HttpContext): Promise<readonly string[] | null> {
    const organization = ctx.organization ?? null
    const cached = this.#roles.get(ctx)
    if (cached && cached.organization === organization) return cached.found
    const found = this.#readRoles(ctx)
    this.#roles.set(ctx, { organization, found })
    return found
  }

  /**
   * Whether `subject` may do `ability` with `args`. `ctx`, when given, lets role abilities decide
   * an ability that no gate or policy speaks for (argument-less questions only).
   */
  async allows(subject: GateSubject, ability: string, args: readonly unknown[] = [], ctx?: HttpContext): Promise<boolean> {
    if (typeof ability !== 'string' || ability === '') return false
    const ruled = await this.#ruled(subject, ability, args)
    if (ruled !== null) return ruled
    if (args.length > 0 || ctx === undefined || subject.user === null) return false
    const abilities = await this.roleAbilities(ctx)
    return abilities !== null && (abilities.includes('*') || abilities.includes(ability))
  }

  /** The answer of a policy or gate: true/false, or null when none speaks for `ability`. */
  async #ruled(subject: GateSubject, ability: string, args: readonly unknown[]): Promise<boolean | null> {
    const { user, organization } = subject
    const found = this.#policyFor(args[0])
    if (found) {
      const method = policyMethod(found.policy, ability)
      if (method) {
        if (user === null) return false
        const rest = found.isClass ? args.slice(1) : args
        const before = (found.policy as { before?: (...a: unknown[]) => unknown }).before
        if (typeof before === 'function') {
          const early = await before.call(found.policy, user, ability, organization, ...rest)
          if (typeof early === 'boolean') return early
        }
        return (await method.call(found.policy, user, organization, ...rest)) === true
      }
    }
    const gate = this.#gates.get(ability)
    if (!gate) return null
    if (user === null && !gate.guests) return false
    return (await gate.check(user, organization, ...args)) === true
  }

  /** The policy of the first argument's model (an instance, or the class itself), or null. */
  #policyFor(first: unknown): { policy: object; isClass: boolean } | null {
    if (this.#policies.size === 0 || first === null || (typeof first !== 'object' && typeof first !== 'function')) return null
    const isClass = typeof first === 'function'
    // Instances: their prototype chain's constructors; classes: their own chain of parent classes.
    for (let cls: unknown = isClass ? first : (first as object).constructor; typeof cls === 'function'; cls = Object.getPrototypeOf(cls)) {
      const policy = this.#policies.get(cls)
      if (policy) return { policy: this.#instance(policy), isClass }
      if (cls === Function.prototype) break
    }
    return null
  }

  #instance(policy: PolicyClass): object {
    let made = this.#instances.get(policy)
    if (!made) {
      made = new policy(...this.#policyArgs)
      this.#instances.set(policy, made)
    }
    return made
  }

  async #readRoles(ctx: HttpContext): Promise<readonly string[] | null> {
    let merged: string[] | null = null
    for (const source of this.#sources) {
      const abilities = await source(ctx)
      if (abilities === null || abilities === undefined) continue
      merged = [...(merged ?? []), ...abilities]
    }
    return merged
  }
}
