/**
 * @module auth/social/install
 * Boot-time wiring of social login, when `social` is on: `config/social.ts` checked (a mistake
 * stops the boot naming the key), the service `auth.social`, and `social_providers` shared with
 * every template (the buttons of /login and /register), and the login hook that settles a pending
 * link-up.
 */
import { inProduction } from '../../foundation/config-files.js'
import type { Application } from '../../foundation/application.js'
import { resolveSocialConfig } from './config.js'
import { Social } from './social.js'
import { completePendingLink } from './forms.js'
import { onLoginCompleted } from '../login/flow.js'

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    /** Social login (`social` feature). */
    'auth.social': Social
  }
}

export function installSocial(app: Application): void {
  const manager = app.make('auth.manager')
  const production = inProduction(app)
  const own = resolveSocialConfig(app.config('social')?.SOCIAL, { production })
  const service = new Social(app, manager, own)
  app.singleton('auth.social', () => service)
  // A link-up waiting in this browser ends with the next login of any method: linked when it is
  // to the account the link-up was found for, discarded otherwise.
  onLoginCompleted(app, async (ctx, user) => {
    await completePendingLink(ctx, service, user)
  })
  const providers = service.providers().map((p) => ({ name: p.name, label: p.label, url: `/auth/${p.name}/redirect` }))
  if (app.has('view')) app.make('view').share({ social_providers: providers })
}
