/**
 * @module auth/auth-routes
 * `Auth.routes()`: the auth and account pages of the features in `GUARDS.features`, served by
 * the controllers `craft auth` writes. The features are read from the booted app's config
 * (`configureAuthRoutes`, called by AuthProvider); `Auth.routes({ features })` overrides them.
 */
import { Route } from '../routing/route.js'
import type { RouteDefinition } from '../routing/route-definition.js'
import { LEGACY_FEATURES, type AuthFeature } from './auth-config.js'
import { servePasskeyClient } from './passkeys/client-bundle.js'

let configured: ReadonlySet<AuthFeature> = new Set(LEGACY_FEATURES)

/** The features `Auth.routes()` serves (the resolved `GUARDS.features` once booted). */
export function configuredFeatures(): ReadonlySet<AuthFeature> {
  return configured
}

/** Called at boot with the resolved `GUARDS.features`. */
export function configureAuthRoutes(features: ReadonlySet<AuthFeature>): void {
  configured = features
}

export function authRoutes(options: { features?: Iterable<AuthFeature> } = {}): RouteDefinition[] {
  const on = options.features ? new Set(options.features) : configured
  const routes: RouteDefinition[] = [
    Route.get('/login', 'auth/LoginController@show').name('login'),
    Route.post('/login', 'auth/LoginController@store').name('login.store'),
    Route.post('/logout', 'auth/LoginController@logout').name('logout'),
    Route.get('/home', 'auth/HomeController@show').name('home').middleware(['auth']),
  ]
  if (on.has('registration')) {
    routes.push(
      Route.get('/register', 'auth/RegisterController@show').name('register'),
      Route.post('/register', 'auth/RegisterController@store').name('register.store'),
    )
  }
  if (on.has('reset_passwords')) {
    routes.push(
      Route.get('/password_reset', 'auth/PasswordResetController@show').name('password.reset'),
      Route.post('/password_reset', 'auth/PasswordResetController@send').name('password.send'),
      Route.get('/change_password', 'auth/PasswordResetController@change').name('password.change.query'),
      Route.post('/change_password', 'auth/PasswordResetController@update').name('password.update.field'),
      Route.get('/change_password/@token', 'auth/PasswordResetController@change').name('password.change'),
      Route.post('/change_password/@token', 'auth/PasswordResetController@update').name('password.update'),
    )
  }
  if (on.has('email_verification')) {
    routes.push(
      Route.get('/email/verify', 'auth/EmailVerificationController@notice').name('verification.notice').middleware(['auth']),
      Route.post('/email/verification-notification', 'auth/EmailVerificationController@resend').name('verification.send').middleware(['auth']),
    )
  }
  // The link mailed at registration, and to a new address on an e-mail change (account pages):
  // GET (and HEAD) show a page and change nothing; its button POSTs to the same path.
  if (on.has('email_verification') || on.has('account')) {
    routes.push(
      Route.get('/email/verify/@token', 'auth/EmailVerificationController@verify').name('verification.verify'),
      Route.post('/email/verify/@token', 'auth/EmailVerificationController@verify').name('verification.confirm'),
    )
  }
  if (on.has('account')) {
    routes.push(
      Route.get('/confirm-password', 'auth/ConfirmPasswordController@show').name('password.confirm').middleware(['auth']),
      Route.post('/confirm-password', 'auth/ConfirmPasswordController@store').name('password.confirm.store').middleware(['auth']),
      Route.get('/account', 'auth/AccountController@show').name('account').middleware(['auth']),
      Route.post('/account/profile', 'auth/AccountController@updateProfile').name('account.profile').middleware(['auth']),
      Route.post('/account/email', 'auth/AccountController@changeEmail').name('account.email').middleware(['auth']),
      Route.post('/account/password', 'auth/AccountController@changePassword').name('account.password').middleware(['auth']),
      Route.get('/account/devices', 'auth/DevicesController@index').name('account.devices').middleware(['auth']),
      Route.post('/account/devices/revoke-others', 'auth/DevicesController@revokeOthers').name('account.devices.revoke_others').middleware(['auth', 'password.confirm']),
      Route.post('/account/devices/@id/revoke', 'auth/DevicesController@revoke').name('account.devices.revoke').middleware(['auth']),
      Route.get('/account/activity', 'auth/ActivityController@index').name('account.activity').middleware(['auth']),
      Route.post('/account/delete', 'auth/AccountController@destroy').name('account.delete').middleware(['auth', 'password.confirm']),
      // "This wasn't me" from a security e-mail: GET (and HEAD) show a page, its button POSTs.
      Route.get('/account/secure/@token', 'auth/SecureAccountController@secure').name('account.secure'),
      Route.post('/account/secure/@token', 'auth/SecureAccountController@secure').name('account.secure.confirm'),
      Route.get('/account/secured', 'auth/SecureAccountController@secured').name('account.secured'),
    )
  }
  if (on.has('two_factor')) {
    // Everything that shows or changes the second factor wants the password typed recently: a
    // borrowed session cannot enrol its own authenticator or read the secret.
    const confirmed = ['auth', 'password.confirm']
    // Enrolling needs a verified address first (the actions check it too, whatever the order).
    const enrolling = on.has('email_verification') ? ['auth', 'verified', 'password.confirm'] : confirmed
    routes.push(
      Route.get('/account/two-factor', 'auth/TwoFactorController@show').name('two_factor').middleware(enrolling),
      Route.post('/account/two-factor', 'auth/TwoFactorController@enable').name('two_factor.enable').middleware(enrolling),
      Route.post('/account/two-factor/recovery-codes', 'auth/TwoFactorController@regenerate').name('two_factor.recovery_codes').middleware(confirmed),
      // Turning the second factor off also wants one given recently (a trusted device is not enough).
      Route.post('/account/two-factor/disable', 'auth/TwoFactorController@disable').name('two_factor.disable').middleware([...confirmed, 'mfa.recent']),
      Route.post('/account/two-factor/forget-devices', 'auth/TwoFactorChallengeController@forgetDevices').name('two_factor.forget_devices').middleware(['auth']),
    )
  }
  if (on.has('two_factor') || on.has('passkeys')) {
    // The second step of a login, and the step-up `mfa` sends to (with a passkey when `two_factor` is off).
    routes.push(
      Route.get('/two-factor-challenge', 'auth/TwoFactorChallengeController@show').name('two_factor.challenge'),
      Route.post('/two-factor-challenge', 'auth/TwoFactorChallengeController@store').name('two_factor.challenge.store'),
    )
  }
  if (on.has('passkeys')) {
    const confirmed = ['auth', 'password.confirm']
    const adding = [...(on.has('email_verification') ? ['auth', 'verified', 'password.confirm'] : confirmed), 'mfa.recent']
    routes.push(
      Route.get('/account/passkeys', 'auth/PasskeyController@index').name('passkeys').middleware(['auth']),
      Route.post('/account/passkeys/@id/delete', 'auth/PasskeyController@destroy').name('passkeys.destroy').middleware(confirmed),
      // Adding a way in: a verified address, the password and (for a user who has one) a recent second factor.
      Route.post('/passkeys/register/options', 'auth/PasskeyController@registerOptions').name('passkeys.register.options').middleware(adding),
      Route.post('/passkeys/register', 'auth/PasskeyController@register').name('passkeys.register').middleware(adding),
      Route.post('/passkeys/login/options', 'auth/PasskeyController@loginOptions').name('passkeys.login.options'),
      Route.post('/passkeys/login', 'auth/PasskeyController@login').name('passkeys.login'),
      // The browser side: @simplewebauthn/browser and the pages' script, served by the framework.
      Route.get('/passkeys/client.js', servePasskeyClient).name('passkeys.client'),
    )
  }
  if (on.has('email_login')) {
    // A mailed link's GET (and HEAD) only shows a page; its button POSTs to the same path.
    routes.push(
      Route.get('/login/email', 'auth/EmailLoginController@show').name('login.email'),
      Route.post('/login/email', 'auth/EmailLoginController@send').name('login.email.send'),
      Route.get('/login/email/sent', 'auth/EmailLoginController@sent').name('login.email.sent'),
      Route.post('/login/email/code', 'auth/EmailLoginController@code').name('login.email.code'),
      Route.get('/login/email/@token', 'auth/EmailLoginController@showLink').name('login.email.link'),
      Route.post('/login/email/@token', 'auth/EmailLoginController@link').name('login.email.link.store'),
    )
  }
  return asJsonForms(routes)
}

/** Forms whose JSON answer is 201 (they create something). */
const CREATES = new Set(['register.store'])
/**
 * The passkey ceremony: JSON endpoints of the pages' script (WebAuthn options and answers, as the
 * browser library reads them), left as they answer.
 */
const SCRIPT_ENDPOINTS = new Set(['passkeys.register.options', 'passkeys.register', 'passkeys.login.options', 'passkeys.login'])
/** Browser navigations, never answered as JSON: the GETs of mailed links, the passkey script. */
const NAVIGATIONS = new Set(['password.change.query', 'password.change', 'verification.verify', 'account.secure', 'login.email.link', 'passkeys.client'])

/**
 * Marks every auth page and form as answering JSON requests with its data (`http/json-forms`),
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
