/**
 * @module foundation/service-provider
 * Providers bind services into the container (`register()`), then use each other's bindings
 * (`boot()`), once at startup, in the order of `config/providers.ts`.
 */
import type { Application } from './application.js'

export abstract class ServiceProvider {
  protected readonly application: Application
  constructor(application: Application) {
    this.application = application
  }
  register(): void | Promise<void> {}
  boot(): void | Promise<void> {}
}

export type ServiceProviderClass = new (application: Application) => ServiceProvider
