/**
 * @module api/features/registry
 * What ApiProvider and `Api.routes()` read from the API's feature list: the routes, each piece's
 * checked options (once per app), their bindings, inventory kinds, route middleware and boot. Each
 * function takes the list (default: `apiFeatures()`) so tests can pass their own.
 */
import type { Application } from '../../foundation/application.js'
import type { RouteEntry } from '../../routing/route-group.js'
import type { AuthInventory } from '../../auth/inventory/index.js'
import type { PruneRule } from '../../auth/features/contract.js'
import type { JwtDriverConfig } from '../jwt-service.js'
import type { ApiFeatureModule, ApiOptionsContext, ApiRoutesOptions } from './contract.js'
import { apiFeatures } from './index.js'

type List = readonly ApiFeatureModule<unknown>[]

/** The routes of every piece, in list order (with the `Route.deferred` entries the router expands). */
export function apiFeatureRoutes(options: ApiRoutesOptions, list: List = apiFeatures()): RouteEntry[] {
  return list.flatMap((f) => f.routes?.(options) ?? [])
}

/**
 * Every piece's bindings (whether or not it is on: they are built on first use), and their prune
 * rules added to `auth.prune.rules` (the auth housekeeping runs them with its own).
 */
export function registerApiFeatures(app: Application, list: List = apiFeatures()): void {
  for (const feature of list) feature.register?.(app)
  const rules = list.flatMap((f) => f.prune ?? [])
  if (rules.length > 0) app.bind('auth.prune.rules', [...(app.get<readonly PruneRule[]>('auth.prune.rules') ?? []), ...rules])
}

/** Each piece's checked options (null: off), made once per app by `resolve`. */
export class ResolvedApiFeatures {
  readonly #options: ReadonlyMap<ApiFeatureModule<unknown>, unknown>
  readonly list: List

  private constructor(options: ReadonlyMap<ApiFeatureModule<unknown>, unknown>, list: List) {
    this.#options = options
    this.list = list
  }

  /** Runs every piece's `options` in list order (a mistake throws, naming the key). */
  static resolve(context: ApiOptionsContext, list: List = apiFeatures()): ResolvedApiFeatures {
    const names = new Set<string>()
    const options = new Map<ApiFeatureModule<unknown>, unknown>()
    for (const feature of list) {
      if (names.has(feature.name)) throw new Error(`Two API features are named "${feature.name}".`)
      names.add(feature.name)
      options.set(feature, feature.options ? feature.options(context) : true)
    }
    return new ResolvedApiFeatures(options, list)
  }

  /** Whether `feature` is on. */
  on(feature: ApiFeatureModule<unknown>): boolean {
    const value = this.#options.get(feature)
    return value !== null && value !== undefined
  }

  /** `feature`'s checked options, or null when it is off (or not in the list). */
  options<O>(feature: ApiFeatureModule<O>): O | null {
    return this.on(feature) ? (this.#options.get(feature) as O) : null
  }

  /** What the pieces that are on add to the JwtService's settings (token families, epochs). */
  jwtSettings(): Partial<JwtDriverConfig> {
    const out: Partial<JwtDriverConfig> = {}
    for (const feature of this.list) if (feature.jwt && this.on(feature)) Object.assign(out, feature.jwt(this.#options.get(feature)))
    return out
  }

  /** Every piece's inventory kinds (whether or not it is on: what was made while on must still end). */
  registerKinds(app: Application, inventory: AuthInventory): void {
    for (const feature of this.list) for (const kind of feature.inventory?.(app, inventory) ?? []) inventory.register(kind)
  }

  /** Boots the pieces that are on: their route middleware (an app's own entry wins), then `install`. */
  async install(app: Application): Promise<void> {
    const stacks = app.kernel?.routeMiddleware
    for (const feature of this.list) {
      if (!this.on(feature)) continue
      if (stacks) for (const [name, classes] of Object.entries(feature.middleware ?? {})) stacks[name] ??= [...classes]
      await feature.install?.(app, this.#options.get(feature))
    }
  }
}
