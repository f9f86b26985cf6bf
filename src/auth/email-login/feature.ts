/**
 * @module auth/email-login/feature
 * Sign-in by e-mailed link and code (`email_login` in `GUARDS.features`): its pages under
 * `/login/email`, the API pair under the API's auth route, the `email_login` (requests per client
 * address) and `email_code` (code answers per address) budgets, the `email_logins` inventory kind,
 * the `email_login_tokens` table and the files `craft auth` writes for it.
 */
import { Route } from '../../routing/route.js'
import { CREDENTIAL_BODY_LIMIT } from '../../http/body-parser.js'
import { defineFeature } from '../features/contract.js'
import { requestEmailLoginByApi, verifyEmailLoginByApi } from './api-routes.js'
import { installEmailLogin } from './install.js'
import { EMAIL_LOGIN_TABLE, emailLoginsKind } from './store.js'
import './events.js'

export const emailLoginFeature = defineFeature({
  name: 'email_login',
  budgets: {
    email_login: { attempts: 10, minutes: 1 },
    email_code: [
      { attempts: 10, minutes: 60 },
      { attempts: 20, minutes: 24 * 60 },
    ],
  },
  events: { 'auth:login_link_sent': 'info', 'auth:login_code_failed': 'info' },
  routes: () => [
    // A mailed link's GET (and HEAD) only shows a page; its button POSTs to the same path.
    Route.get('/login/email', 'auth/EmailLoginController@show').name('login.email'),
    Route.post('/login/email', 'auth/EmailLoginController@send').name('login.email.send').bodyLimit(CREDENTIAL_BODY_LIMIT),
    Route.get('/login/email/sent', 'auth/EmailLoginController@sent').name('login.email.sent'),
    Route.post('/login/email/code', 'auth/EmailLoginController@code').name('login.email.code').bodyLimit(CREDENTIAL_BODY_LIMIT),
    Route.get('/login/email/@token', 'auth/EmailLoginController@showLink').name('login.email.link'),
    Route.post('/login/email/@token', 'auth/EmailLoginController@link').name('login.email.link.store'),
  ],
  apiRoutes: ({ authRoute }) => [
    Route.post(`${authRoute}/email`, requestEmailLoginByApi).name('api.auth.email'),
    Route.post(`${authRoute}/email/verify`, verifyEmailLoginByApi).name('api.auth.email.verify'),
  ],
  inventory: () => [emailLoginsKind()],
  install: installEmailLogin,
  prune: [{ table: EMAIL_LOGIN_TABLE, expired: (q, now) => q.where('expires_at', '<=', now) }],
  scaffold: {
    migrations: ['create_email_login_tables'],
    controllers: ['EmailLoginController.ts'],
    templates: ['email_login.html', 'email_login_link.html', 'email_login_sent.html'],
    mailTemplates: ['email_login.html'],
  },
})
