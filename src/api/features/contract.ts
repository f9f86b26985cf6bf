/**
 * @module api/features/contract
 * The contract every piece of the JWT API implements, the API's counterpart of the auth features'
 * (`auth/features/contract.ts`): one module per folder (`feature.ts`), listed once in
 * `api/features/index.ts`. ApiProvider and `Api.routes()` read the list for everything a piece
 * adds — its checked slice of `DRIVERS.jwt`, its routes, bindings, inventory kinds, boot and route
 * middleware — so a piece touches no shared file.
 */
import type { PruneRule } from '../../auth/features/contract.js'
import type { Application } from '../../foundation/application.js'
import type { MiddlewareClass } from '../../http/middleware.js'
import type { RouteEntry } from '../../routing/route-group.js'
import type { AuthInventory, InventoryKind } from '../../auth/inventory/index.js'
import type { JwtDriverConfig } from '../jwt-service.js'
import type { DriverSettings } from '../api-config.js'

/** What `Api.routes({ ... })` takes in routes/web.ts; each piece reads its own keys. */
export interface ApiRoutesOptions {
  /** The personal access tokens page at /account/tokens (default true). */
  tokensPage?: boolean
  authRoute?: string
  reauthRoute?: string
  /** POST, Bearer: ends the presented token (default `/api/logout`). */
  logoutRoute?: string
  /** POST `token` (RFC 7009): revokes it if it is current (default `/api/revoke`). */
  revokeRoute?: string
  /** GET: the JWK Set of the public keys (default `/.well-known/jwks.json`; 404 with HMAC). */
  jwksRoute?: string
  /** GET: the OpenAPI document (default `/api/openapi.json`; 404 unless `DRIVERS.jwt.openapi` is true). */
  openapiRoute?: string
}

/** What a piece's `options` reads: the app, its driver as written, and the tokens' own settings. */
export interface ApiOptionsContext {
  readonly app: Application
  /** `DRIVERS.<default>` of config/api.ts (empty when the file is missing). */
  readonly settings: DriverSettings
  /** The JwtService's settings (throws ApiConfigError when config/api.ts lacks them). */
  jwt(): JwtDriverConfig
}

export interface ApiFeatureModule<Options = unknown> {
  /** snake_case: `token_routes`, `families`, `epochs`, `personal_tokens`, `jwks`, `openapi`. */
  readonly name: string
  /**
   * Checks its keys of `DRIVERS.jwt` once, at boot (a mistake throws ApiConfigError naming the
   * key); null: off. Without it the piece is always on, with no options.
   */
  options?(context: ApiOptionsContext): Options | null
  /**
   * Its routes, added by `Api.routes()` in list order (made API routes by the piece); what depends
   * on the app mounting them is a `Route.deferred` entry (routes/web.ts is read without the app).
   */
  routes?(options: ApiRoutesOptions): RouteEntry[]
  /** What it adds, when on, to the JwtService's settings (`families`, `epochs`). */
  jwt?(options: Options): Partial<JwtDriverConfig>
  /** Bindings that exist whether or not it is on (built on first use). */
  register?(app: Application): void
  /** Its kinds of the auth inventory, registered whether or not it is on (old items must still end). */
  inventory?(app: Application, inventory: AuthInventory): InventoryKind[]
  /** Boot when on, with its checked options. */
  install?(app: Application, options: Options): void | Promise<void>
  /** Route middleware names it adds to the kernel's `routeMiddleware` (an app's own entry wins). */
  readonly middleware?: Readonly<Record<string, MiddlewareClass[]>>
  /** Its errors module, when it has one (each class and code documented in docs/errors.md). */
  readonly errors?: Readonly<Record<string, unknown>>
  /** The migrations (stubs of `stubs/migrations/`) that create its tables and columns. */
  readonly migrations?: readonly string[]
  /** Rows past their life in its tables, removed by `craft auth:prune` with the auth tables (on or not). */
  readonly prune?: readonly PruneRule[]
}

/** Declares a piece of the API (checks the name's shape; the list checks that names are unique). */
export function defineApiFeature<O>(feature: ApiFeatureModule<O>): ApiFeatureModule<O> {
  if (!/^[a-z][a-z0-9_]*$/.test(feature.name)) throw new Error(`An API feature's name must be snake_case, got ${JSON.stringify(feature.name)}.`)
  return Object.freeze(feature)
}
