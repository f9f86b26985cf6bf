/**
 * @module session/session-provider
 * Binds `session.config` (the resolved `config/session.ts`) and `session.store` (the driver's
 * store), checking the config at startup so a bad driver stops the app with a message naming
 * the key instead of failing on the first request. Listed in `coreProviders()`.
 */
import { ServiceProvider } from '../foundation/service-provider.js'
import { sessionConfig, sessionStore } from './session-middleware.js'

export class SessionProvider extends ServiceProvider {
  override register(): void {
    sessionConfig(this.application)
  }

  override boot(): void {
    sessionStore(this.application)
  }
}
