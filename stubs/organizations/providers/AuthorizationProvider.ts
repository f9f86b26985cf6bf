import { ServiceProvider } from 'trowel'

/**
 * Who may do what. Define the app's gates and policies in boot(): a gate answers for one ability
 * (`can:<ability>` middleware, `ctx.auth.can()`, `ctx.authorize()`); without one, the current
 * organisation member's role abilities (GUARDS.organizations.roles in config/auth.ts) decide.
 *
 *   import { Gate } from 'trowel/auth'
 *   Gate.define('projects:delete', (user, organization, project) => project.owner_id === user.id)
 *   Gate.policy(Project, ProjectPolicy)
 */
export class AuthorizationProvider extends ServiceProvider {
  static providerName = 'AuthorizationProvider'

  override boot(): void {
    // Gate.define(...) and Gate.policy(...) go here.
  }
}
