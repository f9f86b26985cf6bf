import { ServiceProvider } from 'trowel'
import { Gate } from 'trowel/auth'

/**
 * Who may do what (docs/authorization.md). Gates are defined here, once, at startup; a gate
 * answers for its ability (`can:<ability>` middleware, `ctx.auth.can()`, `ctx.authorize()`).
 * An ability without a gate is decided by the current organisation member's role abilities
 * (GUARDS.organizations.roles in config/auth.ts).
 */
export class AuthorizationProvider extends ServiceProvider {
  static providerName = 'AuthorizationProvider'

  override boot(): void {
    // (user, organization, ...args): organization is ctx.organization, or null. For example:
    //   Gate.define('posts:publish', (user, organization) => organization !== null && user.email_verified_at !== null)
    //   Gate.policy(Post, PostPolicy)
    void Gate
  }
}
