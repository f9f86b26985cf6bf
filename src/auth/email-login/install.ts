/**
 * @module auth/email-login/install
 * Boot-time wiring of sign-in by e-mail (the feature's `install`, run when `email_login` is in
 * `GUARDS.features`): the service (`auth.email_login`) and the mail (`app/mailables/EmailLogin.ts`
 * when the app has one, else the default).
 */
import type { Application } from '../../foundation/application.js'
import { importAppModule } from '../../foundation/app-modules.js'
import { findModule } from '../../foundation/module-finder.js'
import { connectionOf } from '../../database/app-database.js'
import { decodeAppKey } from '../../http/cookie-jar.js'
import { resolveEmailLoginConfig } from './config.js'
import { EmailLogin } from './email-login.js'
import { DefaultEmailLogin } from './mail.js'
import { EmailLoginStore } from './store.js'

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    /** Sign-in by e-mailed link and code (`email_login` feature). */
    'auth.email_login': EmailLogin
  }
}

export async function installEmailLogin(app: Application): Promise<void> {
  const manager = app.make('auth.manager')
  const own = resolveEmailLoginConfig(app.config('auth')?.GUARDS)
  const store = new EmailLoginStore(() => connectionOf(app), decodeAppKey(process.env.APP_KEY ?? ''))
  const service = new EmailLogin(app, manager, own, store)
  app.singleton('auth.email_login', () => service)
  const file = findModule(app.path('app/mailables/EmailLogin'))
  const mod = file ? await importAppModule(file, 'app/mailables/EmailLogin.ts') : {}
  app.bind('auth.email_login_mailable', mod.EmailLogin ?? mod.default ?? DefaultEmailLogin)
}
