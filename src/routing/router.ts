/**
 * @module routing/router
 * Flattens route files into compiled routes, matches requests through find-my-way's radix tree,
 * tells 404 from 405 (with `Allow`), and builds URLs for named routes.
 *
 * Path syntax: `@id` (a segment), `@id:int` (digits only), `?id` (optional last segment);
 * find-my-way's own `:id` also works.
 */
import FindMyWay from 'find-my-way'
import type { RouteInfo } from '../http/context.js'
import { RouteDefinition, type MiddlewareReference } from './route-definition.js'
import { DeferredRoutes, RouteGroup, type RouteEntry } from './route-group.js'
import { RouteDefinitionError, RouteNotFoundByNameError } from './errors.js'

export interface CompiledRoute {
  definition: RouteDefinition
  methods: string[]
  /** The full path as declared (`/posts/@id`). */
  path: string
  name?: string
  /** Stacks and classes in order: group stacks first, then the route's own. */
  middleware: MiddlewareReference[]
  info: RouteInfo
  /** Filled in by the kernel when it resolves handlers and middleware at startup. */
  runtime?: unknown
}

export interface RouteMatch {
  route: CompiledRoute
  params: Record<string, string>
}

export type MatchResult =
  | { kind: 'found'; route: CompiledRoute; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' }

export interface MountOptions {
  prefix?: string
  middleware?: MiddlewareReference[]
  namePrefix?: string
  json?: boolean
}

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

function joinPaths(prefix: string, path: string): string {
  const joined = `/${prefix}/${path}`.replace(/\/{2,}/g, '/')
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined
}

/** Converts Trowel path syntax to find-my-way's. */
export function toRouterPath(path: string): string {
  return path
    .split('/')
    .map((segment, i, all) => {
      if (segment.startsWith('@')) {
        const [name, type] = segment.slice(1).split(':')
        if (!name) throw new RouteDefinitionError(`Route path "${path}" has an empty parameter name.`)
        if (type === 'int' || type === 'integer') return `:${name}(^\\d+$)`
        return `:${name}`
      }
      if (segment.startsWith('?')) {
        if (i !== all.length - 1) throw new RouteDefinitionError(`Optional parameter "${segment}" must be the last segment of "${path}".`)
        return `:${segment.slice(1).split(':')[0]}?`
      }
      return segment
    })
    .join('/')
}

/** Whether two compiled routes say exactly the same thing (methods, path, handler, name, middleware, JSON). */
function sameRoute(a: CompiledRoute, b: CompiledRoute): boolean {
  return (
    a.path === b.path &&
    a.name === b.name &&
    a.definition.handler === b.definition.handler &&
    a.info.json === b.info.json &&
    a.info.form === b.info.form &&
    a.methods.join() === b.methods.join() &&
    a.middleware.length === b.middleware.length &&
    a.middleware.every((m, i) => m === b.middleware[i])
  )
}

export class Router {
  readonly routes: CompiledRoute[] = []
  #byName = new Map<string, CompiledRoute>()
  #tree = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 500 })
  /** Path prefixes whose unmatched requests answer JSON (e.g. `/api`). */
  readonly jsonPrefixes: string[] = []
  /** Whose routes these are (the application): handed to the `Route.deferred` entries mounted here. */
  readonly #owner: unknown

  constructor(owner?: unknown) {
    this.#owner = owner
  }

  /** Adds the entries of a routes file (definitions, groups and nested arrays). */
  mount(entries: RouteEntry[] | RouteEntry, options: MountOptions = {}): CompiledRoute[] {
    const added: CompiledRoute[] = []
    const visit = (entry: RouteEntry, prefix: string, middleware: MiddlewareReference[], namePrefix: string) => {
      if (Array.isArray(entry)) {
        for (const e of entry) visit(e, prefix, middleware, namePrefix)
      } else if (entry instanceof RouteGroup) {
        const o = entry.options
        for (const e of entry.routes) {
          visit(e, joinPaths(prefix, o.prefix ?? ''), [...middleware, ...(o.middleware ?? [])], namePrefix + (o.name ?? ''))
        }
      } else if (entry instanceof DeferredRoutes) {
        if (this.#owner === undefined) throw new RouteDefinitionError('Routes that depend on the application (Route.deferred, Auth.routes()) were mounted on a router that has none: mount them on app.router.')
        visit(entry.build(this.#owner), prefix, middleware, namePrefix)
      } else if (entry instanceof RouteDefinition) {
        added.push(this.#add(entry, prefix, middleware, namePrefix, options.json ?? false))
      } else {
        throw new RouteDefinitionError(`A routes file contains something that is not a route: ${String(entry)}`)
      }
    }
    visit(entries as RouteEntry, options.prefix ?? '', options.middleware ?? [], options.namePrefix ?? '')
    if (options.json && options.prefix) this.jsonPrefixes.push(joinPaths(options.prefix, ''))
    return added
  }

  #add(def: RouteDefinition, prefix: string, groupMiddleware: MiddlewareReference[], namePrefix: string, json: boolean): CompiledRoute {
    const path = joinPaths(prefix, def.path)
    const excluded = new Set(def.excludedMiddleware)
    const middleware = [...groupMiddleware, ...def.middlewareList].filter(
      (m) => typeof m !== 'string' || !excluded.has(m.split(':')[0]!),
    )
    const name = def.routeName ? namePrefix + def.routeName : undefined
    const route: CompiledRoute = {
      definition: def,
      methods: def.methods,
      path,
      name,
      middleware,
      info: { name, path, methods: def.methods, json: json || def.json, ...(def.jsonForm ? { form: def.jsonForm } : {}) },
    }
    // The same route listed twice (e.g. `...Auth.routes()` added by hand after `craft auth` wired
    // it) is one route: the repeat is skipped. Anything else on a taken path is a conflict.
    const twin = this.routes.find((r) => sameRoute(r, route))
    if (twin) return twin
    const routerPath = toRouterPath(path)
    for (const method of def.methods) {
      if (!HTTP_METHODS.includes(method)) throw new RouteDefinitionError(`Unknown HTTP method "${method}" for route ${path}.`)
      try {
        this.#tree.on(method as FindMyWay.HTTPMethod, routerPath, () => undefined, { route })
      } catch (error) {
        throw new RouteDefinitionError(`Route ${method} ${path} cannot be added: ${(error as Error).message}`, { cause: error })
      }
    }
    if (name) {
      if (this.#byName.has(name)) throw new RouteDefinitionError(`Two routes are named "${name}" (${this.#byName.get(name)!.path} and ${path}).`)
      this.#byName.set(name, route)
    }
    this.routes.push(route)
    return route
  }

  match(method: string, path: string): MatchResult {
    const found = this.#find(method, path) ?? (method === 'HEAD' ? this.#find('GET', path) : null)
    if (found) return { kind: 'found', route: found.route, params: found.params }
    const allowed = HTTP_METHODS.filter((m) => m !== method && (this.#find(m, path) || (m === 'HEAD' && this.#find('GET', path))))
    if (allowed.length > 0) return { kind: 'method-not-allowed', allowed }
    return { kind: 'not-found' }
  }

  #find(method: string, path: string): RouteMatch | null {
    let result
    try {
      result = this.#tree.find(method as FindMyWay.HTTPMethod, path)
    } catch {
      return null
    }
    if (!result) return null
    const params: Record<string, string> = Object.create(null)
    const found = result.params as Record<string, string | undefined>
    for (const k in found) if (found[k] !== undefined) params[k] = found[k]
    return { route: (result.store as { route: CompiledRoute }).route, params }
  }

  has(name: string): boolean {
    return this.#byName.has(name)
  }

  /** The URL of a named route: `url('posts.show', { id: 7 })` → `/posts/7`; extra params become the query. */
  url(name: string, params: Record<string, unknown> = {}): string {
    const route = this.#byName.get(name)
    if (!route) throw new RouteNotFoundByNameError(name)
    const used = new Set<string>()
    const path = route.path
      .split('/')
      .map((segment) => {
        const optional = segment.startsWith('?')
        if (!segment.startsWith('@') && !optional && !segment.startsWith(':')) return segment
        const key = segment.slice(1).split(':')[0]!.replace(/\?$/, '')
        const value = params[key]
        if (value === undefined || value === null) {
          if (optional || segment.endsWith('?')) return null
          throw new RouteDefinitionError(`Route "${name}" needs the parameter "${key}".`)
        }
        used.add(key)
        return encodeURIComponent(String(value))
      })
      .filter((s) => s !== null)
      .join('/')
    const query = new URLSearchParams()
    for (const [k, v] of Object.entries(params)) if (!used.has(k) && v !== undefined && v !== null) query.append(k, String(v))
    const qs = query.toString()
    return (path || '/') + (qs ? `?${qs}` : '')
  }

  isJsonPath(path: string): boolean {
    return this.jsonPrefixes.some((p) => path === p || path.startsWith(p === '/' ? p : p + '/'))
  }
}

/** The URL helper exported from `trowel`: `route('posts.show', { id: 7 })`. */
let current: Router | null = null
export function setCurrentRouter(router: Router | null): void {
  current = router
}
export function route(name: string, params?: Record<string, unknown>): string {
  if (!current) throw new RouteNotFoundByNameError(name)
  return current.url(name, params)
}
