/**
 * @module api/api-provider
 * `ApiProvider` turns the JWT API on (it is off until listed in `config/providers.ts`):
 * - checks `DRIVERS.jwt` of `config/api.ts` once: the tokens' own settings (api-config) and each
 *   piece's slice (the API feature list, `api/features/`); when serving, a missing or short
 *   `JWT_SECRET`, an unknown algorithm, a bad `expires`/`version` or a missing `config/api.ts`
 *   stops the app at startup with a message that says what to fix;
 * - binds `api.jwt` (the JwtService, with what the pieces that are on add: token families,
 *   epochs) and each piece's bindings;
 * - adds the `jwt` guard to `auth.guard(...)`, and the API's kinds to the auth inventory;
 * - boots the pieces that are on (their route middleware, `install`);
 * - serves the `ROUTES` of the file bound at `routes.api.location` under `/api`, inside the `api`
 *   stack, with JSON errors (an unknown path under `/api` is a JSON 404 with or without a token).
 */
import { databaseOf } from '../database/app-database.js'
import { ServiceProvider } from '../foundation/service-provider.js'
import { loadRouteFile } from '../foundation/route-file.js'
import { RouteDefinitionError } from '../routing/errors.js'
import { JwtService } from './jwt-service.js'
import { JwtGuard } from './guards/jwt/guard.js'
import { JWT_GUARD } from './guards/jwt/jwt-guard-of.js'
import { bindModelApi } from './jwt-service-registry.js'
import { apiTokensKind } from './api-inventory.js'
import { driverSettings, jwtDriverConfig, jwtModel } from './api-config.js'
import { registerApiFeatures, ResolvedApiFeatures } from './features/registry.js'

export class ApiProvider extends ServiceProvider {
  static providerName = 'ApiProvider'

  #features: ResolvedApiFeatures | undefined

  /** Each piece's checked slice of `DRIVERS.jwt` (made once; a mistake throws ApiConfigError). */
  features(): ResolvedApiFeatures {
    const app = this.application
    this.#features ??= ResolvedApiFeatures.resolve({ app, settings: driverSettings(app), jwt: () => jwtDriverConfig(app) })
    return this.#features
  }

  override register(): void {
    const app = this.application
    app.singleton('api.jwt', () => {
      // The tokens' own settings first: a missing config/api.ts is the first thing to fix.
      const config = jwtDriverConfig(app)
      return new JwtService({ ...config, ...this.features().jwtSettings(), database: () => databaseOf(app) })
    })
    // `user.generateJwt()` and `user.createToken()` on the app's model issue through this app's services.
    const model = jwtModel(app)
    if (typeof model === 'function' || (typeof model === 'object' && model !== null)) bindModelApi(model, { jwt: () => app.make('api.jwt'), personalTokens: () => app.make('api.personal_tokens'), events: app.events })
    registerApiFeatures(app)
  }

  override async boot(): Promise<void> {
    const app = this.application
    if (app.get('app.mode') === 'http') app.make('api.jwt')
    const features = this.features()
    if (app.has('auth.manager')) {
      const manager = app.make('auth.manager')
      manager.extend(JWT_GUARD, (ctx, name) => {
        const jwt = app.make('api.jwt')
        return new JwtGuard(name, ctx, { jwt, provider: jwt.provider, verifier: app.make('auth.verifier'), events: app.events, personal: app.make('api.personal_tokens'), challenge: manager.challenge })
      })
      // The API's tokens in the inventory: every revocation ends the JWTs; the pieces add theirs
      // (personal access tokens: "This wasn't me" and deletion).
      manager.inventory.register(apiTokensKind(app))
      features.registerKinds(app, manager.inventory)
    }
    await features.install(app)
    if (!app.has('routes.api.location')) return
    if (!app.kernel.routeMiddleware.api) {
      throw new RouteDefinitionError(
        'The routes of routes/api.ts run in the "api" stack, which Kernel.ts does not define. ' +
          "Add api: [JWTAuthenticationMiddleware, LoadUserMiddleware] (from 'trowel/api') to routeMiddleware in Kernel.ts.",
      )
    }
    const routes = await loadRouteFile(app, 'routes.api.location', { required: true })
    if (routes) app.router.mount(routes, { prefix: '/api', middleware: ['api'], json: true })
  }
}
