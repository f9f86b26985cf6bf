/**
 * @module api/api-provider
 * `ApiProvider` turns the JWT API on (it is off until listed in `config/providers.ts`):
 * - binds `api.jwt` (the JwtService of `DRIVERS.jwt` in `config/api.ts`); when serving, a missing
 *   or short `JWT_SECRET`, an unknown algorithm, a bad `expires`/`version` or a missing
 *   `config/api.ts` stops the app at startup with a message that says what to fix;
 * - adds the `jwt` guard to `auth.guard(...)`;
 * - serves the `ROUTES` of the file bound at `routes.api.location` under `/api`, inside the `api`
 *   stack, with JSON errors (an unknown path under `/api` is a JSON 404 with or without a token).
 */
import { ServiceProvider } from '../foundation/service-provider.js'
import { loadRouteFile } from '../foundation/route-file.js'
import { RouteDefinitionError } from '../routing/errors.js'
import { JwtService, type JwtDriverConfig } from './jwt-service.js'
import { JwtGuard } from './guards/jwt/guard.js'
import { bindJwtService } from './jwt-service-registry.js'
import { ApiConfigError } from './errors.js'
import { PersonalTokenRepository } from './personal-tokens/repository.js'
import { AbilityMiddleware } from './middleware/ability-middleware.js'
import { TokenEpochs } from './revocation/token-epochs.js'
import type { FamilyOptions } from './families/token-families.js'
import { TokenFamilyDevices } from './families/family-devices.js'
import { devicesOf } from '../auth/accounts/devices.js'
import { registerApiKinds } from './api-inventory.js'
import { db } from '../database/database-manager.js'

/** `previous_keys`: an array of PEM strings, or one string of comma-separated PEMs (JWT_PREVIOUS_KEYS). */
function pemList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : []
  return items.filter((x): x is string => typeof x === 'string' && x.trim() !== '')
}

export class ApiProvider extends ServiceProvider {
  static providerName = 'ApiProvider'

  /** `DRIVERS.jwt`, with the model and defaults filled in; the codec validates the rest once. */
  /** The users' model: `DRIVERS.<default>.model`, else `GUARDS.web.model` (undefined when neither is set). */
  #model(): object | undefined {
    const drivers = this.application.config('api')?.DRIVERS
    return drivers?.[drivers.default ?? 'jwt']?.model ?? this.application.config('auth')?.GUARDS?.web?.model
  }

  driverConfig(): JwtDriverConfig {
    const drivers = this.application.config('api')?.DRIVERS
    if (!drivers) throw new ApiConfigError('config/api.ts is missing or does not export DRIVERS: run "node craft api:install".')
    const name = drivers.default ?? 'jwt'
    const config = drivers[name]
    if (!config || typeof config !== 'object') throw new ApiConfigError(`config/api.ts: DRIVERS.${name} is missing.`)
    const model = this.#model()
    if (!model) throw new ApiConfigError('config/api.ts: DRIVERS.jwt.model is not set (your User model).')
    return {
      algorithm: config.algorithm ?? 'HS512',
      secret: config.secret,
      model,
      expires: config.expires ?? null,
      version: config.version ?? null,
      authenticates: config.authenticates === true,
      leeway: config.leeway,
      previousSecrets: Array.isArray(config.previous_secrets)
        ? config.previous_secrets.filter((x: unknown) => typeof x === 'string' && x !== '')
        : (process.env.JWT_PREVIOUS_SECRETS ?? '').split(',').map((x) => x.trim()).filter(Boolean),
      // Asymmetric algorithms (EdDSA, ES256, RS256): the signing key, and old keys that still verify.
      privateKey: config.private_key ?? config.privateKey ?? process.env.JWT_PRIVATE_KEY,
      previousKeys: pemList(config.previous_keys ?? config.previousKeys ?? process.env.JWT_PREVIOUS_KEYS),
    }
  }

  #epochs: TokenEpochs | null | undefined

  /**
   * `DRIVERS.jwt.revocation = 'epoch'`: the users' token epochs kept in this process (made once);
   * null without the setting. Redis pub/sub when REDIS_URL is set, else a database poll.
   */
  tokenEpochs(): TokenEpochs | null {
    if (this.#epochs !== undefined) return this.#epochs
    const drivers = this.application.config('api')?.DRIVERS
    const revocation = drivers?.[drivers?.default ?? 'jwt']?.revocation
    if (revocation === undefined || revocation === null) return (this.#epochs = null)
    const config = this.driverConfig()
    if (revocation !== 'epoch') throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.revocation must be 'epoch' or null, got ${JSON.stringify(revocation)}.`)
    const model = config.model
    const lifetime = typeof config.expires === 'number' && config.expires > 0 ? Math.ceil(config.expires * 60) + Number(config.leeway ?? 0) : null
    return (this.#epochs = new TokenEpochs({
      db: () => db(model.connection),
      table: model.getTable(),
      primaryKey: model.getPrimaryKey(),
      lifetimeSeconds: lifetime,
      redisUrl: process.env.REDIS_URL || null,
      log: this.application.log,
    }))
  }

  /**
   * `DRIVERS.jwt.store = 'table'`: per-device token families in `api_tokens` (`reuse_window`
   * seconds, default 10; `max_age` minutes, default 43200, null: none); null for the default
   * `'column'` store (the user's token column).
   */
  familyOptions(): Omit<FamilyOptions, 'sign'> | null {
    const drivers = this.application.config('api')?.DRIVERS
    const config = drivers?.[drivers?.default ?? 'jwt'] ?? {}
    const store = config.store ?? 'column'
    if (store === 'column') return null
    if (store !== 'table') throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.store must be 'column' or 'table', got ${JSON.stringify(store)}.`)
    const reuseWindow = config.reuse_window ?? 10
    // At most an hour: auth:prune clears the encrypted successors kept for retries after that.
    if (typeof reuseWindow !== 'number' || !Number.isFinite(reuseWindow) || reuseWindow < 0 || reuseWindow > 3600) {
      throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.reuse_window must be a number of seconds from 0 to 3600, got ${JSON.stringify(reuseWindow)}.`)
    }
    const maxAge = config.max_age === undefined ? 43200 : config.max_age
    if (maxAge !== null && (typeof maxAge !== 'number' || !Number.isFinite(maxAge) || maxAge <= 0)) {
      throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.max_age must be a positive number of minutes or null, got ${JSON.stringify(maxAge)}.`)
    }
    const cookies = this.application.make('cookies')
    return {
      connection: this.driverConfig().model?.connection,
      reuseWindow,
      maxAge,
      // A successor is kept encrypted with APP_KEY (AES-256-GCM, bound to this purpose) for the window only.
      sealer: { seal: (value) => cookies.pack('api_tokens.successor', value, 'encrypted'), open: (sealed) => cookies.unpack('api_tokens.successor', sealed) },
    }
  }

  override register(): void {
    this.application.singleton('api.jwt', () => new JwtService({ ...this.driverConfig(), epochs: this.tokenEpochs(), families: this.familyOptions() }))
    // `user.generateJwt()` on the app's model issues through this app's service.
    const model = this.#model()
    if (model) bindJwtService(model, () => this.application.make('api.jwt'))
    // Personal access tokens live beside the users (the model's connection).
    this.application.singleton('api.personal_tokens', () => new PersonalTokenRepository({ connection: this.driverConfig().model?.connection }))
  }

  override async boot(): Promise<void> {
    const app = this.application
    if (app.get('app.mode') === 'http') app.make('api.jwt')
    if (app.has('auth.manager')) {
      app.make('auth.manager').extend('jwt', (ctx, name) => {
        const jwt = app.make('api.jwt')
        return new JwtGuard(name, ctx, { jwt, provider: jwt.provider, verifier: app.make('auth.verifier'), events: app.events, personal: app.make('api.personal_tokens'), challenge: app.make('auth.manager').challenge })
      })
      // The API's tokens in the inventory: every revocation ends the JWTs, "This wasn't me" and
      // deletion the personal access tokens too.
      registerApiKinds(app, app.make('auth.manager').inventory)
      // The devices page lists each live token family and can end one.
      if (this.familyOptions()) {
        const manager = app.make('auth.manager')
        devicesOf(manager).register(new TokenFamilyDevices(() => app.make('api.jwt').families!, manager.inventory))
      }
    }
    const epochs = this.tokenEpochs()
    if (epochs) {
      app.onShutdown(() => epochs.stop())
      // Serving: every raised epoch is read once, then followed (pub/sub or poll); requests never query.
      if (app.get('app.mode') === 'http') await epochs.start()
    }
    // `ability:<name>` works without a Kernel.ts entry; an app's own `ability` stack wins.
    app.kernel.routeMiddleware.ability ??= [AbilityMiddleware]
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
