/**
 * @module foundation/route-resolver
 * Turns route handlers into callables once, at startup, so a bad controller name stops the app
 * with a message instead of failing a request. Controllers are loaded from `app/controllers/`
 * (`'auth.LoginController@show'` and `'auth/LoginController@show'` both mean
 * `app/controllers/auth/LoginController.ts`), exported by their file name or as the default
 * export, and instantiated per request. A controller or method name one or two edits away from an
 * existing one is answered with "Did you mean ...?". `resolveRoute` adds the route's middleware
 * (routing/handler-resolver.ts: `resolveMiddleware`).
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Application } from './application.js'
import type { HttpContext } from '../http/context.js'
import type { CompiledRoute } from '../routing/router.js'
import type { RouteHandler } from '../routing/route-definition.js'
import { RouteDefinitionError } from '../routing/errors.js'
import { resolveMiddleware, type ResolvedHandler, type RouteRuntime } from '../routing/handler-resolver.js'
import { appModuleUrl } from './app-modules.js'
import { findModule, SOURCE_EXTENSIONS } from './module-finder.js'
import { closestMatch } from '../support/levenshtein.js'
import { FRAMEWORK_ROOT } from '../support/framework-root.js'

const moduleCache = new Map<string, Promise<Record<string, unknown>>>()

async function loadController(app: Application, reference: string): Promise<new (...a: any[]) => any> {
  const relative = reference.replace(/\./g, '/')
  const file = findModule(app.path('app', 'controllers', relative))
  if (!file) {
    // A page of GUARDS.features whose controller this app predates: `craft auth --missing` adds it.
    if (relative.startsWith('auth/') && existsSync(join(FRAMEWORK_ROOT, 'stubs', 'auth', 'controllers', `${relative.slice(5)}.ts`))) {
      throw new RouteDefinitionError(
        `Controller "${reference}" not found: app/controllers/${relative}.ts serves auth pages that GUARDS.features in config/auth.ts turns on. ` +
          'Run "node craft auth --missing" (adds the auth files and migrations this app lacks, changing none it has), then "node craft migrate"; or remove the feature.',
      )
    }
    const near = closestMatch(relative, controllerNames(app.path('app', 'controllers')))
    // The suggestion is written the way the reference was: `auth.LoginController` or `auth/LoginController`.
    const suggestion = near === undefined ? undefined : reference.includes('.') ? near.replace(/\//g, '.') : near
    throw new RouteDefinitionError(
      suggestion
        ? `Controller "${reference}" not found: there is no app/controllers/${relative}.ts. Did you mean ${suggestion}?`
        : `Controller "${reference}" not found: expected app/controllers/${relative}.ts (create it with "node craft controller ${relative}").`,
    )
  }
  let loading = moduleCache.get(file)
  if (!loading) {
    loading = import(appModuleUrl(file)) as Promise<Record<string, unknown>>
    moduleCache.set(file, loading)
  }
  const mod = await loading
  const name = relative.split('/').pop()!
  const cls = (mod[name] ?? mod.default) as (new (...a: any[]) => any) | undefined
  if (typeof cls !== 'function') {
    throw new RouteDefinitionError(`app/controllers/${relative}.ts must export a class named ${name} (or a default export).`)
  }
  return cls
}

/** `PostsController`, `auth/LoginController`...: the controllers under `dir`, without extension. */
function controllerNames(dir: string, prefix = ''): string[] {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  const names: string[] = []
  for (const entry of entries) {
    if (entry.isDirectory()) names.push(...controllerNames(join(dir, entry.name), `${prefix}${entry.name}/`))
    const ext = SOURCE_EXTENSIONS.find((e) => entry.name.endsWith(e))
    if (entry.isFile() && ext && !entry.name.endsWith(`.d${ext}`)) names.push(prefix + entry.name.slice(0, -ext.length))
  }
  return names
}

/** The methods a controller instance has (its own and inherited), without the constructor. */
function methodNames(cls: new (...a: any[]) => any): string[] {
  const names = new Set<string>()
  for (let proto = cls.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, name)?.value === 'function') names.add(name)
    }
  }
  return [...names]
}

export async function resolveHandler(app: Application, handler: RouteHandler, where: string): Promise<ResolvedHandler> {
  if (typeof handler === 'function') return handler as ResolvedHandler
  let cls: new (...a: any[]) => any
  let method: string
  if (typeof handler === 'string') {
    const at = handler.lastIndexOf('@')
    if (at <= 0 || at === handler.length - 1) throw new RouteDefinitionError(`${where}: handler "${handler}" must look like "Controller@method".`)
    cls = await loadController(app, handler.slice(0, at))
    method = handler.slice(at + 1)
  } else if (Array.isArray(handler) && typeof handler[0] === 'function' && typeof handler[1] === 'string') {
    ;[cls, method] = handler
  } else {
    throw new RouteDefinitionError(`${where}: a handler must be "Controller@method", [Controller, "method"] or a function.`)
  }
  if (typeof cls.prototype?.[method] !== 'function') {
    const near = closestMatch(method, methodNames(cls))
    throw new RouteDefinitionError(`${where}: controller ${cls.name} has no method "${method}".${near ? ` Did you mean ${near}?` : ''}`)
  }
  return (ctx: HttpContext) => new cls(ctx.app)[method](ctx)
}

export async function resolveRoute(app: Application, route: CompiledRoute): Promise<RouteRuntime> {
  const where = `Route ${route.methods.join('|')} ${route.path}`
  const required = route.definition.requiresProvider
  if (required && !app.hasProvider(required.name)) {
    throw new RouteDefinitionError(
      `${where} comes from ${required.key}, which needs ${required.name}: add ${required.name} to PROVIDERS in config/providers.ts.`,
    )
  }
  return {
    handler: await resolveHandler(app, route.definition.handler, where),
    middleware: resolveMiddleware(app, route.middleware, where),
  }
}
