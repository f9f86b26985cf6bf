/**
 * @module auth/auth-routes
 * `Auth.routes()`: the login pages, then the routes of each feature of `GUARDS.features` that is
 * on (each feature module's `routes(on)`, in the order of the feature list), served by the
 * controllers `craft auth` writes. The features are the booted app's (`configureAuthRoutes`,
 * called by AuthProvider); `Auth.routes({ features })` overrides them.
 */
import { Route } from '../routing/route.js'
import type { RouteDefinition } from '../routing/route-definition.js'
import { LEGACY_FEATURES } from './auth-config.js'
import { featureRoutes } from './features/registry.js'
import { servePageScript } from './pages/page-bundle.js'

let configured: ReadonlySet<string> | null = null

/** The features that are on (the resolved `GUARDS.features` once booted). */
export function configuredFeatures(): ReadonlySet<string> {
  return configured ?? new Set(LEGACY_FEATURES)
}

/** Called at boot with the resolved `GUARDS.features`. */
export function configureAuthRoutes(features: ReadonlySet<string>): void {
  configured = features
}

export function authRoutes(options: { features?: Iterable<string> } = {}): RouteDefinition[] {
  const on = options.features ? new Set(options.features) : configuredFeatures()
  return [
    Route.get('/login', 'auth/LoginController@show').name('login'),
    Route.post('/login', 'auth/LoginController@store').name('login.store'),
    Route.post('/logout', 'auth/LoginController@logout').name('logout'),
    Route.get('/home', 'auth/HomeController@show').name('home').middleware(['auth']),
    // The pages' script: copy and print buttons, the password-strength hint (no CDN).
    Route.get('/auth/pages.js', servePageScript).name('auth.pages_script'),
    ...featureRoutes(on),
  ]
}
