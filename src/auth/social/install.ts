/**
 * @module auth/social/install
 * Boot-time wiring of social login (feature `social`): the inventory kinds (registered whatever
 * the features, so identities linked before the feature was turned off still end with recovery
 * and deletion), then, when on, `config/social.ts` checked (a mistake stops the boot naming the
 * key), the service `auth.social`, and `social_providers` shared with every template (the
 * buttons of /login and /register).
 */
import type { Application } from '../../foundation/application.js'
import type { ResolvedAuthConfig } from '../auth-config.js'
import { resolveSocialConfig } from './config.js'
import { Social } from './social.js'
import { identitiesKind, pendingKind } from './store.js'

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    /** Social login (`social` feature). */
    'auth.social': Social
  }
}

export function installSocial(app: Application, config: ResolvedAuthConfig): void {
  const manager = app.make('auth.manager')
  manager.inventory.register(identitiesKind(manager.inventory))
  manager.inventory.register(pendingKind(manager.inventory))
  if (!config.features.has('social')) return
  const production = String(app.config('application')?.APPLICATION?.env ?? process.env.APP_ENV ?? '').toLowerCase() === 'production'
  const own = resolveSocialConfig(app.config('social')?.SOCIAL, { production })
  const service = new Social(app, manager, own)
  app.singleton('auth.social', () => service)
  const providers = service.providers().map((p) => ({ name: p.name, label: p.label, url: `/auth/${p.name}/redirect` }))
  if (app.has('view')) app.make('view').share({ social_providers: providers })
}
