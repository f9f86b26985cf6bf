/**
 * @module auth/two-factor/feature
 * Two factors (`two_factor` in `GUARDS.features`): the enrolment page (TOTP and recovery codes),
 * and the second step of a login (`/two-factor-challenge`, which also serves the passkey step-up
 * of `mfa` when only `passkeys` is on). Everything that shows or changes the second factor wants
 * the password typed recently: a borrowed session cannot enrol its own authenticator or read the
 * secret; turning it off also wants a second factor given recently.
 */
import { Route } from '../../routing/route.js'
import { CREDENTIAL_BODY_LIMIT } from '../../http/body-parser.js'
import { CHALLENGE_PAGE, secondStepRoutes } from './second-step-routes.js'
import { apiSecondStepRoutes } from './api-second-step.js'
import { defineFeature } from '../features/contract.js'
import { usersTableOf } from '../inventory/index.js'
import { registerTwoFactor } from './install.js'
import { registerTwoFactorChallenge } from './install-challenge.js'
import { totpKind, trustedDevicesKind } from './inventory.js'
import { twoFactorLoginChallenge } from './login-challenge.js'
import { NEW_CODES_KEY, TOTP_PENDING_KEY } from './pending-secret.js'
import { ACTIVITY_LABELS, SECURITY_NOTICES } from './notices.js'
import { TWO_FACTOR_OPENAPI } from './openapi.js'
import * as errors from './errors.js'
import './events.js'

declare module '../auth-config.js' {
  interface AuthBudgets {
    /** Wrong second-factor answers per pending login. */
    two_factor: true
  }
  interface AuthNotifications {
    /** TOTP turned on or off. */
    two_factor: true
    /** The 5th wrong second-factor answer within an hour (the password is known). */
    second_factor_failed: true
  }
}

export const twoFactorFeature = defineFeature({
  name: 'two_factor',
  generated: true,
  budgets: { two_factor: { attempts: 5, minutes: 1 } },
  notifications: ['two_factor', 'second_factor_failed'],
  errors,
  events: { 'auth:two_factor_enabled': 'info', 'auth:two_factor_disabled': 'info', 'auth:two_factor_failed': 'warn' },
  activityLabels: ACTIVITY_LABELS,
  securityNotices: SECURITY_NOTICES,
  // An unfinished enrolment and codes waiting to be shown belong to the login that made them.
  loginSessionKeys: [TOTP_PENDING_KEY, NEW_CODES_KEY],
  register: (app) => {
    registerTwoFactor(app)
    registerTwoFactorChallenge(app)
  },
  // After a correct password: a user with TOTP is held back until the second step (the pending
  // logins and trusted devices, bound by `register`, also serve the passkey step-up).
  loginChallenge: (app) => {
    const { pending, trusted } = app.make('auth.two_factor_challenge')
    return twoFactorLoginChallenge(app, pending, trusted)
  },
  secondFactor: (app) => ({ enrolled: (userId) => app.make('auth.two_factor').isEnabled(userId), enrolPage: '/account/two-factor', pageFlag: 'two_factor_on' }),
  // The challenge page: served whenever a feature offering a second factor is on (passkeys alone
  // too); the API's second step (POST <authRoute>/two-factor), listed by Api.routes(); the event
  // of every refused second-factor answer (a passkey's too).
  secondStep: { page: CHALLENGE_PAGE, routes: secondStepRoutes, apiRoutes: apiSecondStepRoutes, failedEvent: 'auth:two_factor_failed' },
  inventory: (_inventory, auth) => [trustedDevicesKind(), totpKind(() => usersTableOf(auth.model))],
  routes: (on) => {
    const confirmed = ['auth', 'password.confirm']
    // Enrolling needs a verified address first (the actions check it too, whatever the order).
    const enrolling = on.has('email_verification') ? ['auth', 'verified', 'password.confirm'] : confirmed
    return [
      Route.get('/account/two-factor', 'auth/TwoFactorController@show').name('two_factor').middleware(enrolling),
      Route.post('/account/two-factor', 'auth/TwoFactorController@enable').name('two_factor.enable').middleware(enrolling).bodyLimit(CREDENTIAL_BODY_LIMIT),
      Route.post('/account/two-factor/recovery-codes', 'auth/TwoFactorController@regenerate').name('two_factor.recovery_codes').middleware(confirmed),
      Route.post('/account/two-factor/disable', 'auth/TwoFactorController@disable').name('two_factor.disable').middleware([...confirmed, 'mfa.recent']),
      Route.post('/account/two-factor/forget-devices', 'auth/TwoFactorChallengeController@forgetDevices').name('two_factor.forget_devices').middleware(['auth']),
    ]
  },
  openapi: TWO_FACTOR_OPENAPI,
  scaffold: {
    controllers: ['TwoFactorController.ts', 'TwoFactorChallengeController.ts'],
    templates: ['two_factor.html', 'two_factor_challenge.html'],
  },
})
