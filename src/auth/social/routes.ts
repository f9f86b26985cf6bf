/**
 * @module auth/social/routes
 * The routes of social login (feature `social`), served by the generated `SocialController`. A
 * provider that is not served answers 404 on every one of them; with no provider at all, none is
 * added. Apple's `form_post` callback is
 * a cross-site POST: it is exempt from CSRF (its `state` is what binds it to this browser).
 */
import type { Application } from '../../foundation/application.js'
import { Route } from '../../routing/route.js'
import type { RouteDefinition } from '../../routing/route-definition.js'

/**
 * Whether `app` serves any provider: with none configured the feature serves nothing (no pages,
 * no API route, no "Connected accounts" section). Asked when the routes are mounted, after
 * `installSocial` bound `auth.social` at boot.
 */
export function socialServing(app: Application): boolean {
  return app.has('auth.social') && app.make('auth.social').providers().length > 0
}

export function socialRoutes(on: ReadonlySet<string>, app: Application): RouteDefinition[] {
  if (!socialServing(app)) return []
  const formPost = Route.post('/auth/@provider/callback', 'auth/SocialController@callback').name('social.callback.post')
  formPost.csrfExempt = true
  // Connecting adds a way in: a verified address, the password and a recent second factor.
  const adding = [...(on.has('email_verification') ? ['auth', 'verified', 'password.confirm'] : ['auth', 'password.confirm']), 'mfa.recent']
  return [
    Route.get('/auth/@provider/redirect', 'auth/SocialController@redirect').name('social.redirect'),
    Route.get('/auth/@provider/callback', 'auth/SocialController@callback').name('social.callback'),
    formPost,
    Route.get('/auth/@provider/link', 'auth/SocialController@link').name('social.link'),
    Route.get('/auth/@provider/email', 'auth/SocialController@email').name('social.email'),
    Route.post('/auth/@provider/email', 'auth/SocialController@sendEmail').name('social.email.send'),
    Route.get('/auth/@provider/email/@token', 'auth/SocialController@showEmailLink').name('social.email.link'),
    Route.post('/auth/@provider/email/@token', 'auth/SocialController@confirmEmail').name('social.email.confirm'),
    Route.post('/auth/@provider/confirm', 'auth/SocialController@confirm').name('social.confirm').middleware(['auth']),
    Route.get('/account/connections', 'auth/SocialController@connections').name('account.connections').middleware(['auth']),
    Route.post('/account/connections/@provider', 'auth/SocialController@connect').name('social.connect').middleware(adding),
    Route.post('/account/connections/@provider/disconnect', 'auth/SocialController@disconnect').name('social.disconnect').middleware(['auth', 'password.confirm']),
  ]
}
