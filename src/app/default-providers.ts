/**
 * @module app/default-providers
 * The framework's own providers, registered before the app's `PROVIDERS`: CORS (`config/cors.ts`,
 * checked first so a bad origin stops the app before anything connects), database, views,
 * sessions, mail, auth (first its feature list, bound as `auth.features`; AuthProvider is listed
 * in a new app's PROVIDERS too; a provider listed twice is registered once, so an app that drops
 * it from the list keeps `ctx.auth`), and observability
 * (`GET /health`, and `GET /metrics` when `METRICS_TOKEN` is set). This is the composition root:
 * the one place below the CLI that names every provider, so that the foundation names none.
 */
import type { ServiceProviderClass } from '../foundation/service-provider.js'
import { CorsProvider } from '../cors/cors-provider.js'
import { DatabaseProvider } from '../database/database-provider.js'
import { ViewProvider } from '../view/view-provider.js'
import { SessionProvider } from '../session/session-provider.js'
import { MailProvider } from '../mail/mail-provider.js'
import { AuthProvider } from '../auth/auth-provider.js'
import { AuthFeaturesProvider } from './auth-features-provider.js'
import { ObservabilityProvider } from '../observability/observability-provider.js'

export function defaultProviders(): ServiceProviderClass[] {
  return [CorsProvider, DatabaseProvider, ViewProvider, SessionProvider, MailProvider, AuthFeaturesProvider, AuthProvider, ObservabilityProvider]
}
