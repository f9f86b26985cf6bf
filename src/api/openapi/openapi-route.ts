/**
 * @module api/openapi/openapi-route
 * `GET /api/openapi.json` (added by `Api.routes()`): the app's OpenAPI document, built from its
 * routes on the first request. Served only when `DRIVERS.jwt.openapi` is `true` in
 * config/api.ts: otherwise 404 `E_NOT_FOUND`, as if the route did not exist (an API's shape is
 * nobody's business unless the app says so). Public, outside the `web` stack.
 */
import { Route } from '../../routing/route.js'
import type { RouteDefinition } from '../../routing/route-definition.js'
import type { HttpContext } from '../../http/context.js'
import { NotFoundError } from '../../http/errors.js'
import type { Application } from '../../foundation/application.js'
import { buildOpenApiDocument, type OpenApiDocument } from './document.js'
import { openApiOptionsFor } from './app-options.js'
import { addWebOperations } from './web-operations.js'
import { asApiRoute } from '../api-route.js'
import { driverSettings } from '../api-config.js'
import { featureOpenApi } from '../../auth/features/registry.js'

/** One document per application: its routes do not change once it serves. */
const documents = new WeakMap<Application, OpenApiDocument>()

/** `DRIVERS.<default>.openapi` of config/api.ts (checked at boot: true, false or absent). */
export function openApiEnabled(app: Application): boolean {
  return driverSettings(app).openapi === true
}

/** The app's OpenAPI document, from its compiled routes; `web: true` adds the web forms that answer JSON. */
export function appOpenApiDocument(app: Application, options: { web?: boolean } = {}): OpenApiDocument {
  // The auth features describe their own routes (an app without the list: none).
  const features = featureOpenApi(app.has('auth.features') ? app.make('auth.features') : [])
  const document = buildOpenApiDocument(app.router.routes, { ...openApiOptionsFor(app), operations: features.operations, ...(features.mfaRequired ? { mfaRequired: features.mfaRequired } : {}) })
  if (options.web) addWebOperations(document, app.router.routes, features)
  return document
}

function serveOpenApi(ctx: HttpContext): unknown {
  if (!openApiEnabled(ctx.app)) throw new NotFoundError()
  let document = documents.get(ctx.app)
  if (document === undefined) {
    document = appOpenApiDocument(ctx.app)
    documents.set(ctx.app, document)
  }
  ctx.response.header('Cache-Control', 'no-cache')
  return document
}

export function openapiRoute(path = '/api/openapi.json'): RouteDefinition {
  return asApiRoute(Route.get(path, serveOpenApi).name('api.openapi'))
}
