/**
 * @module view/view-provider
 * Binds `view` (the app's `ViewFactory`) and `http.context.view` (what `ctx.view` is built with:
 * `(ctx) => view.forContext(ctx)`), and on boot points the exception handler's HTML error page
 * at `view.renderErrorPage()` (the app's `templates/errors/<status>.html` or `errors/error.html`
 * when present, else the framework's page). Listed in `defaultProviders()` (app/default-providers.ts).
 */
import { ServiceProvider } from '../foundation/service-provider.js'
import type { HttpContext } from '../http/context.js'
import type { ExceptionHandler } from '../http/exception-handler.js'
import { ViewFactory } from './view-factory.js'

export class ViewProvider extends ServiceProvider {
  override register(): void {
    const app = this.application
    if (!app.has('view')) app.singleton('view', () => new ViewFactory(app))
    if (!app.has('http.context.view')) {
      app.bind('http.context.view', (ctx: HttpContext) => app.make<ViewFactory>('view').forContext(ctx))
    }
  }

  override boot(): void {
    const app = this.application
    if (!app.has('exceptions')) return
    const handler = app.make<ExceptionHandler>('exceptions')
    handler.renderPage = (page) => app.make<ViewFactory>('view').renderErrorPage(page)
  }
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    view: ViewFactory
  }
}
