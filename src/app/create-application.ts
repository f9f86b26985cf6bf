/**
 * @module app/create-application
 * `createApplication(basePath, options)`: boots the app in `basePath` with the framework's default
 * providers (`defaultProviders()`), then the app's `PROVIDERS`. The steps are those of
 * foundation/bootstrap.ts: `bootApplication`.
 */
import type { Application } from '../foundation/application.js'
import { bootApplication, type BootOptions } from '../foundation/bootstrap.js'
import { defaultProviders } from './default-providers.js'

export async function createApplication(basePath: string, options: Omit<BootOptions, 'providers'> = {}): Promise<Application> {
  return bootApplication(basePath, { ...options, providers: defaultProviders() })
}
