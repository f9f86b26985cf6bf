/**
 * @module auth/auth-routes
 * `Auth.routes()`: the login pages, then the routes of each feature of `GUARDS.features` that is
 * on (each feature module's `routes(on, app)`, in the order of the feature list), served by the
 * controllers `craft auth` writes. A routes file is read without the app at hand, so the routes
 * are one `Route.deferred` entry: the router expands it with the application that mounts it, its
 * feature list (`auth.features`) and its resolved `GUARDS.features` (`auth.config`, bound by
 * AuthProvider at boot). `Auth.routes({ features })` overrides the features that are on.
 */
import type { Application } from '../foundation/application.js'
import { Route } from '../routing/route.js'
import { CREDENTIAL_BODY_LIMIT } from '../http/body-parser.js'
import type { RouteDefinition } from '../routing/route-definition.js'
import type { RouteEntry } from '../routing/route-group.js'
import { LEGACY_FEATURES } from './auth-config.js'
import { featureRoutes, featuresOf } from './features/registry.js'
import { servePageScript } from './pages/page-bundle.js'

/** The features `app` turned on (its resolved `GUARDS.features`; an app without GUARDS: the legacy pages). */
export function enabledFeatures(app: Application): ReadonlySet<string> {
  return app.get('auth.config')?.features ?? new Set(LEGACY_FEATURES)
}

/** The routes of `Auth.routes()` for `app` (see the module's comment). */
export function authRoutesFor(app: Application, options: { features?: Iterable<string> } = {}): RouteDefinition[] {
  const on = options.features ? new Set(options.features) : enabledFeatures(app)
  const routes = [
    Route.get('/login', 'auth/LoginController@show').name('login'),
    Route.post('/login', 'auth/LoginController@store').name('login.store').bodyLimit(CREDENTIAL_BODY_LIMIT),
    Route.post('/logout', 'auth/LoginController@logout').name('logout'),
    Route.get('/home', 'auth/HomeController@show').name('home').middleware(['auth']),
    // The pages' script: copy and print buttons, the password-strength hint (no CDN).
    Route.get('/auth/pages.js', servePageScript).name('auth.pages_script'),
    ...featureRoutes(on, featuresOf(app), app),
  ]
  return asJsonForms(routes)
}

/** `Auth.routes()`: one entry the router expands with the application being booted. */
export function authRoutes(options: { features?: Iterable<string> } = {}): RouteEntry[] {
  return [Route.deferred((app) => authRoutesFor(app as Application, options))]
}

/** Forms whose JSON answer is 201 (they create something). */
const CREATES = new Set(['register.store', 'organizations.store', 'organizations.invite'])
/**
 * The passkey ceremony: JSON endpoints of the pages' script (WebAuthn options and answers, as the
 * browser library reads them), left as they answer.
 */
const SCRIPT_ENDPOINTS = new Set(['passkeys.register.options', 'passkeys.register', 'passkeys.login.options', 'passkeys.login'])
/**
 * Browser navigations, never answered as JSON: the GETs of mailed links, a provider's callback
 * (and its `form_post`), the passkey script and the pages' script.
 */
const NAVIGATIONS = new Set([
  'password.change.query',
  'password.change',
  'verification.verify',
  'account.secure',
  'login.email.link',
  'passkeys.client',
  'auth.pages_script',
  'social.callback',
  'social.callback.post',
  'social.email.link',
  'invitations.show',
])

/**
 * Marks every auth page and form as answering JSON requests with its data (`session/json-forms`),
 * unless the route already says how (a feature's `.creates()` or `.navigation()`).
 */
function asJsonForms(routes: RouteDefinition[]): RouteDefinition[] {
  for (const route of routes) {
    const name = route.routeName ?? ''
    if (route.jsonForm || SCRIPT_ENDPOINTS.has(name)) continue
    route.form(CREATES.has(name) ? 'create' : NAVIGATIONS.has(name) ? 'navigation' : 'form')
  }
  return routes
}
