/**
 * @module auth/organizations/routes
 * The organisation pages and the invitation link, served by the generated
 * `OrganizationsController` and `InvitationsController`. Every change is a POST; the mailed link's
 * GET (and HEAD) only shows a page. Deleting an organisation wants the password typed recently.
 */
import { Route } from '../../routing/route.js'
import type { RouteDefinition } from '../../routing/route-definition.js'

export function organizationRoutes(): RouteDefinition[] {
  const c = 'auth/OrganizationsController'
  return [
    Route.get('/organizations', `${c}@index`).name('organizations').middleware(['auth']),
    Route.post('/organizations', `${c}@store`).name('organizations.store').middleware(['auth']),
    Route.get('/organizations/@slug', `${c}@show`).name('organizations.show').middleware(['auth']),
    Route.post('/organizations/@slug', `${c}@update`).name('organizations.update').middleware(['auth']),
    Route.post('/organizations/@slug/invitations', `${c}@invite`).name('organizations.invite').middleware(['auth']),
    Route.post('/organizations/@slug/invitations/@id/revoke', `${c}@revokeInvitation`).name('organizations.invitations.revoke').middleware(['auth']),
    Route.post('/organizations/@slug/members/@id/role', `${c}@changeRole`).name('organizations.members.role').middleware(['auth']),
    Route.post('/organizations/@slug/members/@id/remove', `${c}@removeMember`).name('organizations.members.remove').middleware(['auth']),
    Route.post('/organizations/@slug/leave', `${c}@leave`).name('organizations.leave').middleware(['auth']),
    Route.post('/organizations/@slug/switch', `${c}@switch`).name('organizations.switch').middleware(['auth']),
    Route.post('/organizations/@slug/delete', `${c}@destroy`).name('organizations.delete').middleware(['auth', 'password.confirm']),
    Route.get('/invitations/@token', 'auth/InvitationsController@show').name('invitations.show'),
    Route.post('/invitations/@token', 'auth/InvitationsController@accept').name('invitations.accept'),
  ]
}
