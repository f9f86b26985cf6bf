/**
 * @module foundation/route-file
 * Loads a route file whose location (`routes/web`, `routes/api`) is bound in the container, for
 * the web routes at startup and for ApiProvider's API routes alike.
 */
import type { Application } from './application.js'
import { importAppModule } from './app-modules.js'
import { FrameworkError } from './framework-error.js'
import { findModule } from './module-finder.js'
import type { RouteDefinition } from '../routing/route-definition.js'

/**
 * The `ROUTES` of the file at `app.make(key)` (e.g. key `routes.location` → `routes/web.ts`).
 * Undefined when `key` is not bound, or when the file does not exist and `required` is false;
 * a missing required file, or one without a `ROUTES` array, stops the app with `E_ROUTES`.
 */
export async function loadRouteFile(app: Application, key: string, options: { required: boolean }): Promise<RouteDefinition[] | undefined> {
  if (!app.has(key)) return undefined
  const location = String(app.make(key))
  const file = findModule(app.path(location))
  if (!file) {
    if (options.required) throw new FrameworkError('E_ROUTES', `${key} is "${location}" but ${location}.ts does not exist.`)
    return undefined
  }
  const mod = await importAppModule(file, `${location}.ts`)
  if (!Array.isArray(mod.ROUTES)) throw new FrameworkError('E_ROUTES', `${location}.ts must export ROUTES as an array.`)
  return mod.ROUTES as RouteDefinition[]
}
