/**
 * @module auth/reset-passwords/feature
 * Password resets (`reset_passwords` in `GUARDS.features`): the page that mails a reset link and
 * the page that changes the password. An app without `GUARDS.features` has it (with registration).
 */
import { Route } from '../../routing/route.js'
import { CREDENTIAL_BODY_LIMIT } from '../../http/body-parser.js'
import { defineFeature } from '../features/contract.js'

declare module '../auth-config.js' {
  interface AuthBudgets {
    /** Reset requests per client address. */
    reset: true
  }
}

export const resetPasswordsFeature = defineFeature({
  name: 'reset_passwords',
  generated: true,
  budgets: { reset: { attempts: 10, minutes: 1 } },
  routes: () => [
    Route.get('/password_reset', 'auth/PasswordResetController@show').name('password.reset'),
    Route.post('/password_reset', 'auth/PasswordResetController@send').name('password.send').bodyLimit(CREDENTIAL_BODY_LIMIT),
    Route.get('/change_password', 'auth/PasswordResetController@change').name('password.change.query'),
    Route.post('/change_password', 'auth/PasswordResetController@update').name('password.update.field').bodyLimit(CREDENTIAL_BODY_LIMIT),
    Route.get('/change_password/@token', 'auth/PasswordResetController@change').name('password.change'),
    Route.post('/change_password/@token', 'auth/PasswordResetController@update').name('password.update').bodyLimit(CREDENTIAL_BODY_LIMIT),
  ],
  scaffold: { controllers: ['PasswordResetController.ts'], mailables: ['ResetPassword.ts'], templates: ['password_reset.html', 'change_password.html'], mailTemplates: ['reset_password.html'] },
})
