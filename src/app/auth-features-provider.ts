/**
 * @module app/auth-features-provider
 * Hands the auth core its feature list: binds `auth.features` to THE list
 * (`auth/features/index.ts: authFeatures()`) before AuthProvider registers. The core never
 * imports the list (its feature modules import the core); it reads `auth.features` from the app
 * it is given, so the list reaches it here, in the composition root.
 */
import { ServiceProvider } from '../foundation/service-provider.js'
import { authFeatures } from '../auth/features/index.js'

export class AuthFeaturesProvider extends ServiceProvider {
  static providerName = 'AuthFeaturesProvider'

  override register(): void {
    if (!this.application.has('auth.features')) this.application.bind('auth.features', authFeatures())
  }
}
