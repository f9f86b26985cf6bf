/**
 * @module auth/auth-routes
 * `Auth.routes()`: the auth and account pages of the features in `GUARDS.features`, served by
 * the controllers `craft auth` writes. The features are read from the booted app's config
 * (`configureAuthRoutes`, called by AuthProvider); `Auth.routes({ features })` overrides them.
 */
import { Route } from '../routing/route.js'
import type { RouteDefinition } from '../routing/route-definition.js'
import { LEGACY_FEATURES, type AuthFeature } from './auth-config.js'

let configured: ReadonlySet<AuthFeature> = new Set(LEGACY_FEATURES)

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
  // The link mailed at registration, and to a new address on an e-mail change (account pages).
  if (on.has('email_verification') || on.has('account')) {
    routes.push(Route.get('/email/verify/@token', 'auth/EmailVerificationController@verify').name('verification.verify'))
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
      // One click from a security e-mail; it only ever locks the account down (see docs/accounts.md).
      Route.get('/account/secure/@token', 'auth/SecureAccountController@secure').name('account.secure'),
    )
  }
  return routes
}
