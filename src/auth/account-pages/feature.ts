/**
 * @module auth/account-pages/feature
 * The account pages (`account` in `GUARDS.features`): profile, e-mail and password changes, the
 * devices and activity pages, deletion, password confirmation, and "This wasn't me" from a
 * security e-mail (GET and HEAD show a page, its button POSTs).
 */
import { Route } from '../../routing/route.js'
import { CREDENTIAL_BODY_LIMIT } from '../../http/body-parser.js'
import { emailLinkRoutes } from '../features/shared-routes.js'
import { defineFeature } from '../features/contract.js'

export const accountFeature = defineFeature({
  name: 'account',
  generated: true,
  routes: (on) => [
    // An address change mails the same link as registration's verification.
    ...(on.has('email_verification') ? [] : emailLinkRoutes()),
    Route.get('/confirm-password', 'auth/ConfirmPasswordController@show').name('password.confirm').middleware(['auth']),
    Route.post('/confirm-password', 'auth/ConfirmPasswordController@store').name('password.confirm.store').middleware(['auth']).bodyLimit(CREDENTIAL_BODY_LIMIT),
    Route.get('/account', 'auth/AccountController@show').name('account').middleware(['auth']),
    Route.post('/account/profile', 'auth/AccountController@updateProfile').name('account.profile').middleware(['auth']),
    Route.post('/account/email', 'auth/AccountController@changeEmail').name('account.email').middleware(['auth']),
    Route.post('/account/password', 'auth/AccountController@changePassword').name('account.password').middleware(['auth']).bodyLimit(CREDENTIAL_BODY_LIMIT),
    Route.get('/account/devices', 'auth/DevicesController@index').name('account.devices').middleware(['auth']),
    Route.post('/account/devices/revoke-others', 'auth/DevicesController@revokeOthers').name('account.devices.revoke_others').middleware(['auth', 'password.confirm']),
    Route.post('/account/devices/@id/revoke', 'auth/DevicesController@revoke').name('account.devices.revoke').middleware(['auth']),
    Route.get('/account/activity', 'auth/ActivityController@index').name('account.activity').middleware(['auth']),
    Route.post('/account/delete', 'auth/AccountController@destroy').name('account.delete').middleware(['auth', 'password.confirm']),
    // "This wasn't me" from a security e-mail: GET (and HEAD) show a page, its button POSTs.
    Route.get('/account/secure/@token', 'auth/SecureAccountController@secure').name('account.secure'),
    Route.post('/account/secure/@token', 'auth/SecureAccountController@secure').name('account.secure.confirm'),
    Route.get('/account/secured', 'auth/SecureAccountController@secured').name('account.secured'),
  ],
  scaffold: {
    controllers: ['AccountController.ts', 'ActivityController.ts', 'ConfirmPasswordController.ts', 'DevicesController.ts', 'SecureAccountController.ts'],
    mailables: ['EmailChangedNotice.ts', 'SecurityNotice.ts'],
    templates: ['account.html', 'activity.html', 'confirm_password.html', 'devices.html', 'secure.html', 'secured.html'],
    mailTemplates: ['email_change_notice.html', 'security_notice.html'],
  },
})
