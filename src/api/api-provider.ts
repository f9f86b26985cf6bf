/**
 * @module api/api-provider
 * `ApiProvider` turns the JWT API on (it is off until listed in `config/providers.ts`):
 * - binds `api.jwt` (the JwtService of `DRIVERS.jwt` in `config/api.ts`); when serving, a missing
 *   or short `JWT_SECRET`, an unknown algorithm or a missing `config/api.ts` stops the app at
 *   startup with a message that says what to fix — never a request-time 500;
 * - adds the `jwt` guard to `auth.guard(...)`;
 * - serves the `ROUTES` of the file bound at `routes.api.location` under `/api`, inside the `api`
 *   stack, with JSON errors (an unknown path under `/api` is a JSON 404 with or without a token).
 */
import { existsSync } from 'node:fs'
import { ServiceProvider } from '../foundation/service-provider.js'
import { importAppModule } from '../foundation/bootstrap.js'
import { FrameworkError } from '../foundation/framework-error.js'
import type { AuthManager } from '../auth/auth-manager.js'
import type { CredentialVerifier } from '../auth/credential-verifier.js'
import { JwtService, type JwtDriverConfig } from './jwt-service.js'
import { JwtGuard } from './guards/jwt-guard.js'
import { setJwtServiceResolver } from './jwt-service-registry.js'
import { ApiConfigError } from './errors.js'

export class ApiProvider extends ServiceProvider {
  static providerName = 'ApiProvider'

  driverConfig(): JwtDriverConfig {
    const drivers = this.application.config('api')?.DRIVERS
    if (!drivers) throw new ApiConfigError('config/api.ts is missing or does not export DRIVERS: run "node craft api:install".')
    const name = drivers.default ?? 'jwt'
    const config = drivers[name]
    if (!config || typeof config !== 'object') throw new ApiConfigError(`config/api.ts: DRIVERS.${name} is missing.`)
    const model = config.model ?? this.application.config('auth')?.GUARDS?.web?.model
    if (!model) throw new ApiConfigError('config/api.ts: DRIVERS.jwt.model is not set (your User model).')
    const expires = config.expires ?? null
    if (expires !== null && !(typeof expires === 'number' && expires > 0 && Number.isFinite(expires))) {
      throw new ApiConfigError('config/api.ts: DRIVERS.jwt.expires must be a positive number of minutes or null.')
    }
    const version = config.version ?? null
    if (version !== null && !(typeof version === 'number' && Number.isFinite(version))) {
      throw new ApiConfigError('config/api.ts: DRIVERS.jwt.version must be a number or null.')
    }
    return {
      algorithm: config.algorithm ?? 'HS512',
      secret: config.secret,
      model,
      expires,
      version,
      authenticates: config.authenticates === true,
      leeway: config.leeway,
      previousSecrets: Array.isArray(config.previous_secrets)
        ? config.previous_secrets.filter((x: unknown) => typeof x === 'string' && x !== '')
        : (process.env.JWT_PREVIOUS_SECRETS ?? '').split(',').map((x) => x.trim()).filter(Boolean),
    }
  }

  override register(): void {
    this.application.singleton('api.jwt', () => new JwtService(this.driverConfig()))
    setJwtServiceResolver(() => this.application.make<JwtService>('api.jwt'))
  }

  override async boot(): Promise<void> {
    const app = this.application
    if (app.get('app.mode') === 'http') app.make('api.jwt')
    if (app.has('auth.manager')) {
      app.make<AuthManager>('auth.manager').extend('jwt', (ctx, name) =>
        new JwtGuard(name, ctx, app.make<JwtService>('api.jwt'), app.make<CredentialVerifier>('auth.verifier')),
      )
    }
    if (!app.has('routes.api.location')) return
    const location = String(app.make('routes.api.location'))
    const file = ['.ts', '.js', '.mts', '.mjs'].map((e) => app.path(location) + e).find((f) => existsSync(f))
    if (!file) throw new FrameworkError('E_ROUTES', `routes.api.location is "${location}" but ${location}.ts does not exist.`)
    const mod = await importAppModule(file, `${location}.ts`)
    if (!Array.isArray(mod.ROUTES)) throw new FrameworkError('E_ROUTES', `${location}.ts must export ROUTES as an array.`)
    app.router.mount(mod.ROUTES, { prefix: '/api', middleware: ['api'], json: true })
  }
}
