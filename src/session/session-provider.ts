/**
 * @module session/session-provider
 * Binds `session.config` (the resolved `config/session.ts`) and `session.store` (the driver's
 * store), checking the config at startup so a bad driver stops the app with a message naming
 * the key instead of failing on the first request. Once the app's routes are resolved it adds
 * `GET /csrf-token` (in the `web` stack) unless the app declares that route itself. It gives the
 * exception handler, which knows no session, a failed web form's way back (`formErrors`: errors and
 * input flashed) and the session's keys for the debug page (`debugDetails`). Listed in
 * `defaultProviders()` (app/default-providers.ts).
 */
import { ServiceProvider } from '../foundation/service-provider.js'
import { resolveRoute } from '../foundation/route-resolver.js'
import { sessionConfig, sessionStore } from './session-middleware.js'
import { CSRF_TOKEN_PATH, csrfTokenRoute } from './csrf-token-route.js'

export class SessionProvider extends ServiceProvider {
  override register(): void {
    const app = this.application
    sessionConfig(app)
    if (!app.has('exceptions')) return
    const handler = app.make('exceptions')
    // A failed web form goes back with its errors and input (never passwords) flashed.
    handler.formErrors.push((ctx, error) => {
      if (!ctx.hasSession) return false
      ctx.session.flashErrors(error.errors)
      ctx.session.flashInput(ctx.request.all())
      return true
    })
    // The debug page names the session's keys, never their values.
    handler.debugDetails.push((ctx) => {
      if (!ctx.hasSession) return { Session: { keys: 'no session on this route' } }
      const keys = Object.keys(ctx.session.all())
      return { Session: { keys: keys.length > 0 ? `${keys.join(', ')} (values hidden)` : 'empty' } }
    })
  }

  override boot(): void {
    const app = this.application
    sessionStore(app)
    app.bind('app.booted.hooks', [...(app.get<(() => unknown)[]>('app.booted.hooks') ?? []), () => this.mountRoutes()])
  }

  /** Adds `GET /csrf-token` unless the app has a GET route at that path. Runs once routes are resolved. */
  async mountRoutes(): Promise<void> {
    const app = this.application
    if (app.router.routes.some((route) => route.path === CSRF_TOKEN_PATH && route.methods.includes('GET'))) return
    for (const route of app.router.mount([csrfTokenRoute()], { middleware: ['web'] })) {
      route.runtime = await resolveRoute(app, route)
    }
  }
}
