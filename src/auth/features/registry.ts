/**
 * @module auth/features/registry
 * What the core reads from the feature list: the names `GUARDS.features` accepts (and the
 * requirements between them), the budgets and notifications the features own, their routes,
 * their boot. Each function takes the list (default: `authFeatures()`) so tests can pass their own.
 */
import type { Application } from '../../foundation/application.js'
import type { RouteDefinition } from '../../routing/route-definition.js'
import { AuthConfigError } from '../errors.js'
import type { BudgetLimit, ResolvedAuthConfig } from '../auth-config.js'
import type { AuthFeatureModule } from './contract.js'
import { authFeatures } from './index.js'

type List = readonly AuthFeatureModule[]

/** The names of the features, in list order. */
export function featureNames(list: List = authFeatures()): string[] {
  return list.map((f) => f.name)
}

/** The feature named `name`, if any. */
export function findFeature(name: string, list: List = authFeatures()): AuthFeatureModule | undefined {
  return list.find((f) => f.name === name)
}

/** The features new apps get in `GUARDS.features` (those marked `generated`). */
export function generatedFeatures(list: List = authFeatures()): string[] {
  return list.filter((f) => f.generated).map((f) => f.name)
}

/**
 * Checks `GUARDS.features`: a list of known names whose requirements are on too. An unknown name
 * names the known ones; a missing requirement names both features.
 */
export function resolveFeatureNames(value: unknown, fallback: readonly string[], list: List = authFeatures()): ReadonlySet<string> {
  const known = featureNames(list)
  if (value === undefined) return new Set(fallback)
  if (!Array.isArray(value)) throw new AuthConfigError(`config/auth.ts: GUARDS.features must be a list of features (${known.join(', ')}).`)
  for (const name of value) {
    if (typeof name !== 'string' || !known.includes(name)) {
      throw new AuthConfigError(`config/auth.ts: GUARDS.features: ${JSON.stringify(name)} is not a feature (${known.join(', ')}).`)
    }
  }
  const on = new Set(value as string[])
  for (const feature of list) {
    if (!on.has(feature.name)) continue
    for (const needed of feature.requires ?? []) {
      if (!on.has(needed)) throw new AuthConfigError(`config/auth.ts: GUARDS.features: "${feature.name}" needs "${needed}"; add "${needed}" to the list or remove "${feature.name}".`)
    }
  }
  return on
}

/** The default limits of the budgets the features own (a name owned twice is a bug in the list). */
export function featureBudgets(list: List = authFeatures()): Record<string, BudgetLimit | readonly BudgetLimit[]> {
  const out: Record<string, BudgetLimit | readonly BudgetLimit[]> = {}
  for (const feature of list) {
    for (const [name, limit] of Object.entries(feature.budgets ?? {})) {
      if (name in out) throw new Error(`Two auth features own the budget "${name}".`)
      out[name] = limit
    }
  }
  return out
}

/** The notification names the features own. */
export function featureNotifications(list: List = authFeatures()): string[] {
  return list.flatMap((f) => f.notifications ?? [])
}

/** The feature serving the second step's page, when a feature offering a second factor is on (see `secondStep`). */
export function secondStepOf(on: ReadonlySet<string>, list: List = authFeatures()): AuthFeatureModule['secondStep'] {
  return list.some((f) => on.has(f.name) && f.secondFactor) ? list.find((f) => f.secondStep)?.secondStep : undefined
}

/** The web routes of the features that are on, in list order; the second step's after the first feature offering a factor. */
export function featureRoutes(on: ReadonlySet<string>, list: List = authFeatures()): RouteDefinition[] {
  const step = secondStepOf(on, list)
  const first = list.find((f) => on.has(f.name) && f.secondFactor)
  return list.filter((f) => on.has(f.name)).flatMap((f) => [...(f.routes?.(on) ?? []), ...(f === first && step ? step.routes() : [])])
}

/** The API routes of the features that are on, under `authRoute`. */
export function featureApiRoutes(on: ReadonlySet<string>, api: { authRoute: string }, list: List = authFeatures()): RouteDefinition[] {
  return list.filter((f) => on.has(f.name)).flatMap((f) => f.apiRoutes?.(api) ?? [])
}

/** The migrations `craft auth` writes for the features (every feature: an app turns one on in config). */
export function featureMigrations(list: List = authFeatures()): string[] {
  return list.flatMap((f) => f.scaffold?.migrations ?? [])
}

/** Runs every feature's `register` (whatever the features: its bindings are built on first use). */
export function registerFeatures(app: Application, list: List = authFeatures()): void {
  for (const feature of list) feature.register?.(app)
}

/** Boots the features that are on: their route middleware (an app's own entry wins), `install`, then their login challenge and second factor. */
export async function installFeatures(app: Application, config: ResolvedAuthConfig, list: List = authFeatures()): Promise<void> {
  const stacks = app.kernel?.routeMiddleware
  app.make('auth.manager').secondStepPage = secondStepOf(config.features, list)?.page ?? null
  for (const feature of list) {
    if (!config.features.has(feature.name)) continue
    if (stacks) for (const [name, classes] of Object.entries(feature.middleware ?? {})) stacks[name] ??= [...classes]
    await feature.install?.(app, config)
    if (feature.loginChallenge) app.make('auth.manager').challenges.push(feature.loginChallenge(app))
    if (feature.secondFactor) app.make('auth.manager').secondFactors.push(feature.secondFactor(app))
  }
}
