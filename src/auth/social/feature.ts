/**
 * @module auth/social/feature
 * Social login (`social` in `GUARDS.features`, on in new apps; with no provider configured it
 * serves nothing): `config/social.ts`, the sign-in, link, e-mail and connections pages, the
 * native apps' ID-token route under the API's auth route, the `social_linked` notice, the
 * `social_identities` and `social_pending` inventory kinds and tables, and what `craft auth`
 * writes for it.
 */
import { Route } from '../../routing/route.js'
import { defineFeature } from '../features/contract.js'
import * as errors from './errors.js'
import { installSocial } from './install.js'
import { signInWithIdToken } from './native.js'
import { socialRoutes, socialServing } from './routes.js'
import { PENDING_TABLE, identitiesKind, pendingKind } from './store.js'
import './events.js'

declare module '../auth-config.js' {
  interface AuthNotifications {
    /** A sign-in provider was linked to the account (its "This wasn't me" removes it). */
    social_linked: true
  }
}

export const socialFeature = defineFeature({
  name: 'social',
  generated: true,
  notifications: ['social_linked'],
  errors,
  events: { 'auth:social_linked': 'info', 'auth:social_unlinked': 'info' },
  routes: (on, app) => socialRoutes(on, app),
  apiRoutes: ({ authRoute }, app) => (!socialServing(app) ? [] : [Route.post(`${authRoute}/social/@provider`, signInWithIdToken).name('api.auth.social')]),
  inventory: () => [identitiesKind(), pendingKind()],
  install: installSocial,
  prune: [{ table: PENDING_TABLE, expired: (q, now) => q.where('expires_at', '<=', now) }],
  scaffold: {
    migrations: ['create_social_identities_table'],
    controllers: ['SocialController.ts'],
    templates: ['social_buttons.html', 'social_link.html', 'social_email.html', 'social_email_link.html', 'connections.html'],
  },
})
