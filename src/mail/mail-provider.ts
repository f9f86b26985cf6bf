/**
 * @module mail/mail-provider
 * Binds `mailer` (the app's `Mailer`), checking `config/mail.ts` at startup so a bad
 * `MAIL_DRIVER` stops the app with a message naming the file. Listed in `defaultProviders()` (app/default-providers.ts), after
 * `ViewProvider` (mails render through the app's views).
 */
import { ServiceProvider } from '../foundation/service-provider.js'
import { Mailer } from './mailer.js'
import { resolveMailConfig } from './mail-config.js'

export class MailProvider extends ServiceProvider {
  override register(): void {
    const app = this.application
    resolveMailConfig(app)
    if (!app.has('mailer')) app.singleton('mailer', () => new Mailer(app))
  }
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    mailer: Mailer
  }
}
