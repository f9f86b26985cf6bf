/**
 * @module auth/passkeys/feature
 * Passkeys (`passkeys` in `GUARDS.features`): the list page, the WebAuthn ceremonies, the browser
 * script; its passkeys are a second factor (`secondFactor`), so the login's second step page is
 * served with it for the passkey step-up of `mfa`.
 * Adding a way in wants a verified address, the password and (for a user who has one) a recent
 * second factor.
 */
import { Route } from '../../routing/route.js'
import { defineFeature } from '../features/contract.js'
import { servePasskeyClient } from './client-bundle.js'
import { registerPasskeys } from './install.js'
import { passkeysKind } from './inventory.js'
import * as errors from './errors.js'
import './events.js'

declare module '../auth-config.js' {
  interface AuthNotifications {
    /** A passkey added or removed. */
    passkeys: true
  }
}

export const passkeysFeature = defineFeature({
  name: 'passkeys',
  generated: true,
  errors,
  events: { 'auth:passkey_added': 'info', 'auth:passkey_removed': 'info' },
  notifications: ['passkeys'],
  register: registerPasskeys,
  secondFactor: (app) => ({ enrolled: (userId) => app.make('auth.passkeys').has(userId), enrolPage: '/account/passkeys' }),
  inventory: () => [passkeysKind()],
  routes: (on) => {
    const confirmed = ['auth', 'password.confirm']
    const adding = [...(on.has('email_verification') ? ['auth', 'verified', 'password.confirm'] : confirmed), 'mfa.recent']
    return [
      Route.get('/account/passkeys', 'auth/PasskeyController@index').name('passkeys').middleware(['auth']),
      Route.post('/account/passkeys/@id/delete', 'auth/PasskeyController@destroy').name('passkeys.destroy').middleware(confirmed),
      Route.post('/passkeys/register/options', 'auth/PasskeyController@registerOptions').name('passkeys.register.options').middleware(adding),
      Route.post('/passkeys/register', 'auth/PasskeyController@register').name('passkeys.register').middleware(adding),
      Route.post('/passkeys/login/options', 'auth/PasskeyController@loginOptions').name('passkeys.login.options'),
      Route.post('/passkeys/login', 'auth/PasskeyController@login').name('passkeys.login'),
      // The browser side: @simplewebauthn/browser and the pages' script, served by the framework.
      Route.get('/passkeys/client.js', servePasskeyClient).name('passkeys.client'),
    ]
  },
  scaffold: { controllers: ['PasskeyController.ts'], templates: ['passkeys.html'] },
})
