/**
 * @module auth/registration/feature
 * Registration (`registration` in `GUARDS.features`): the register page. An app without
 * `GUARDS.features` has it (with password resets).
 */
import { Route } from '../../routing/route.js'
import { CREDENTIAL_BODY_LIMIT } from '../../http/body-parser.js'
import { defineFeature } from '../features/contract.js'

declare module '../auth-config.js' {
  interface AuthBudgets {
    /** Registrations per client address. */
    register: true
  }
}

export const registrationFeature = defineFeature({
  name: 'registration',
  generated: true,
  budgets: { register: { attempts: 10, minutes: 1 } },
  routes: () => [
    Route.get('/register', 'auth/RegisterController@show').name('register'),
    Route.post('/register', 'auth/RegisterController@store').name('register.store').bodyLimit(CREDENTIAL_BODY_LIMIT),
  ],
  scaffold: { controllers: ['RegisterController.ts'], templates: ['register.html'] },
})
