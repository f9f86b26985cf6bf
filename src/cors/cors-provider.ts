/**
 * @module cors/cors-provider
 * `CorsProvider` (a core provider, always registered): reads `config/cors.ts` and `CORS_ORIGINS`
 * at startup, so an origin that is not one (a wildcard, `null`, a path) stops the app with a
 * message naming the file or the variable, and binds the result as `cors.config`. When there are
 * origins it puts `CorsMiddleware` first in the kernel's `httpMiddleware` (unless the app's
 * `Kernel.ts` lists it already), so preflights are answered before any other middleware, route
 * stack or handler. Without origins nothing is added: requests are answered as if CORS did not
 * exist.
 */
import { ServiceProvider } from '../foundation/service-provider.js'
import { resolveCorsConfig } from './cors-config.js'
import { CorsMiddleware } from './cors-middleware.js'

export class CorsProvider extends ServiceProvider {
  static providerName = 'CorsProvider'

  override register(): void {
    const app = this.application
    const config = resolveCorsConfig(app)
    app.bind('cors.config', config)
    if (config === null) return
    const kernel = app.kernel
    if (!kernel.httpMiddleware.includes(CorsMiddleware)) kernel.httpMiddleware = [CorsMiddleware, ...kernel.httpMiddleware]
  }
}
