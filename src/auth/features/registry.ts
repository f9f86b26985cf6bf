/**
 * @module auth/features/registry
 * What the core reads from the feature list: the names `GUARDS.features` accepts (and the
 * requirements between them), the budgets and notifications the features own, their routes,
 * their boot. The list is given, never imported: at boot it is the app's `auth.features`
 * (`featuresOf(app)`), bound by whoever builds the app; tests pass their own.
 */
import type { Application } from '../../foundation/application.js'
import type { RouteDefinition } from '../../routing/route-definition.js'
import { AuthConfigError } from '../errors.js'
import type { ResolvedAuthConfig } from '../auth-config.js'
import type { ApiSecondStepContext, AuthFeatureModule, FeatureOpenApi, WebFormDoc } from './contract.js'

export { featureBudgets, featureNotifications, resolveFeatureNames } from '../auth-config.js'

type List = readonly AuthFeatureModule[]

/** The app's feature modules (`auth.features`); unbound, a boot error that says who binds it. */
export function featuresOf(app: Application): List {
  if (!app.has('auth.features')) {
    throw new AuthConfigError('The auth feature list is not bound (auth.features): boot the app with createApplication (trowel), which binds it before AuthProvider.')
  }
  return app.make('auth.features')
}

/** The names of the features, in list order. */
export function featureNames(list: List): string[] {
  return list.map((f) => f.name)
}

/** The feature named `name`, if any. */
export function findFeature(name: string, list: List): AuthFeatureModule | undefined {
  return list.find((f) => f.name === name)
}

/** The features new apps get in `GUARDS.features` (those marked `generated`). */
export function generatedFeatures(list: List): string[] {
  return list.filter((f) => f.generated).map((f) => f.name)
}

/**
 * The routes of the features that are on, in list order. Two features that declare the same
 * method and path stop the boot with an error naming both: the union must be unambiguous.
 */
function unionOfRoutes(on: ReadonlySet<string>, list: List, routesOf: (f: AuthFeatureModule) => RouteDefinition[] | undefined): RouteDefinition[] {
  const owners = new Map<string, string>()
  const out: RouteDefinition[] = []
  for (const feature of list) {
    if (!on.has(feature.name)) continue
    for (const route of routesOf(feature) ?? []) {
      // `/a/@id` and `/a/@token` are one path to the router: parameters compare by position.
      const path = route.path.replace(/\/[@?][^/]*/g, '/@')
      for (const method of route.methods) {
        const key = `${method} ${path}`
        const owner = owners.get(key)
        if (owner !== undefined) throw new AuthConfigError(`The auth features "${owner}" and "${feature.name}" both declare ${method} ${route.path}; turn one of them off in GUARDS.features of config/auth.ts.`)
        owners.set(key, feature.name)
      }
      out.push(route)
    }
  }
  return out
}

/** The feature serving the second step's page, when a feature offering a second factor is on (see `secondStep`). */
export function secondStepOf(on: ReadonlySet<string>, list: List): AuthFeatureModule['secondStep'] {
  return list.some((f) => on.has(f.name) && f.secondFactor) ? list.find((f) => f.secondStep)?.secondStep : undefined
}

/** The web routes of the features that are on, in list order, for `app`; the second step's after the first feature offering a factor. */
export function featureRoutes(on: ReadonlySet<string>, list: List, app: Application): RouteDefinition[] {
  const step = secondStepOf(on, list)
  const first = list.find((f) => on.has(f.name) && f.secondFactor)
  return unionOfRoutes(on, list, (f) => [...(f.routes?.(on, app) ?? []), ...(f === first && step ? step.routes() : [])])
}

/** The API routes of the features that are on, under `authRoute`, for `app`. */
export function featureApiRoutes(on: ReadonlySet<string>, api: { authRoute: string }, list: List, app: Application): RouteDefinition[] {
  return unionOfRoutes(on, list, (f) => f.apiRoutes?.(api, app))
}

/** The API routes of the login's second step (`secondStep.apiRoutes` of the first feature that has them), whatever the features. */
export function secondStepApiRoutes(api: ApiSecondStepContext, list: List): RouteDefinition[] {
  return list.find((f) => f.secondStep?.apiRoutes)?.secondStep?.apiRoutes?.(api) ?? []
}

/** What the features say of their routes in the OpenAPI document, merged (a name described twice: the first feature's). */
export function featureOpenApi(list: List): Pick<Required<FeatureOpenApi>, 'operations' | 'forms'> & Pick<FeatureOpenApi, 'mfaRequired'> {
  const operations: Record<string, Readonly<Record<string, unknown>>> = {}
  const forms: Record<string, WebFormDoc> = {}
  for (const feature of list) {
    for (const [name, operation] of Object.entries(feature.openapi?.operations ?? {})) operations[name] ??= operation
    for (const [name, doc] of Object.entries(feature.openapi?.forms ?? {})) forms[name] ??= doc
  }
  const mfaRequired = list.find((f) => f.openapi?.mfaRequired)?.openapi?.mfaRequired
  return { operations, forms, ...(mfaRequired ? { mfaRequired } : {}) }
}

/** The migrations `craft auth` writes for the features (every feature: an app turns one on in config). */
export function featureMigrations(list: List): string[] {
  return list.flatMap((f) => f.scaffold?.migrations ?? [])
}

/** Runs every feature's `register` (whatever the features: its bindings are built on first use). */
export function registerFeatures(app: Application, list: List): void {
  for (const feature of list) feature.register?.(app)
}

/** Boots the features that are on: their route middleware (an app's own entry wins), `install`, then their login challenge and second factor. */
export async function installFeatures(app: Application, config: ResolvedAuthConfig, list: List): Promise<void> {
  const stacks = app.kernel?.routeMiddleware
  const step = secondStepOf(config.features, list)
  app.make('auth.manager').secondStepPage = step?.page ?? null
  app.make('auth.manager').secondStepFailedEvent = step?.failedEvent ?? null
  for (const feature of list) {
    if (!config.features.has(feature.name)) continue
    if (stacks) for (const [name, classes] of Object.entries(feature.middleware ?? {})) stacks[name] ??= [...classes]
    await feature.install?.(app, config)
    if (feature.loginChallenge) app.make('auth.manager').challenges.push(feature.loginChallenge(app))
    if (feature.secondFactor) app.make('auth.manager').secondFactors.push(feature.secondFactor(app))
  }
}
