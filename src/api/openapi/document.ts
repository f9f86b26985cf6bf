/**
 * @module api/openapi/document
 * Builds the OpenAPI 3.1 document of an app's API from its compiled routes: the routes
 * `Api.routes()` adds (described by name in `token-operations.ts`) and every route of the `api`
 * stack (`routes/api.ts`; a `Route.api` resource is its five routes, the update route answering
 * PUT and PATCH). Web pages are left out. Paths are OpenAPI templates (`/posts/@id` →
 * `/posts/{id}`; an optional last segment `?id` gives two paths). Nothing here knows what a
 * handler returns, so success bodies are untyped JSON; the error bodies are exact.
 */
import type { CompiledRoute } from '../../routing/router.js'
import type { MiddlewareReference } from '../../routing/route-definition.js'
import type { MfaRequiredDoc } from '../../auth/features/contract.js'
import { JWT_SCHEME, PERSONAL_TOKEN_SCHEME, components, ref } from './components.js'
import { tokenOperations } from './token-operations.js'

export interface OpenApiOptions {
  /** `info.title`: the app's name. */
  title?: string
  /** `info.version`: the app's version (its package.json). */
  version?: string
  description?: string
  /** `servers[0].url`, e.g. the app's URL; left out when not given (clients use the document's origin). */
  serverUrl?: string
  /** Operations of other routes `Api.routes()` adds, by route name, as `tokenOperations()`'s (the auth features' `openapi.operations`). */
  operations?: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  /** How the feature serving the second step explains `E_MFA_REQUIRED` (without it, plainer words). */
  mfaRequired?: MfaRequiredDoc
}

export type OpenApiDocument = Record<string, any> & { openapi: '3.1.0'; paths: Record<string, Record<string, any>> }

const BODY_METHODS = new Set(['post', 'put', 'patch'])
/** OpenAPI's operation keys of a Path Item. */
const OPENAPI_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

interface PathParam {
  name: string
  integer: boolean
}

/** `/api/posts/@id:int` → `[{ path: '/api/posts/{id}', params: [{ name: 'id', integer: true }] }]`. */
export function openApiPaths(path: string): { path: string; params: PathParam[] }[] {
  const params: PathParam[] = []
  let optional: string | null = null
  const segments = path.split('/').map((segment) => {
    const param = /^[@:?]([^:(]+)(?::(\w+)|\((.*)\))?\??$/.exec(segment)
    if (segment === '*') {
      params.push({ name: 'wildcard', integer: false })
      return '{wildcard}'
    }
    if (!param) return segment
    const name = param[1]!
    if (segment.startsWith('?') || segment.endsWith('?')) optional = name
    params.push({ name, integer: param[2] === 'int' || param[2] === 'integer' })
    return `{${name}}`
  })
  const full = { path: segments.join('/') || '/', params }
  if (optional === null) return [full]
  // OpenAPI has no optional path parameters: the route is two paths, with and without it.
  const without = segments.slice(0, -1).join('/') || '/'
  return [{ path: without, params: params.filter((p) => p.name !== optional) }, full]
}

function inApiStack(middleware: MiddlewareReference[]): boolean {
  return middleware.some((m) => m === 'api')
}

/** `ability:a,b` on a route → `['a', 'b']`: what a personal access token must carry. */
function abilitiesOf(middleware: MiddlewareReference[]): string[] {
  const out: string[] = []
  for (const m of middleware) {
    if (typeof m === 'string' && m.startsWith('ability:')) out.push(...m.slice('ability:'.length).split(',').map((a) => a.trim()).filter(Boolean))
  }
  return [...new Set(out)]
}

/** Whether the route is behind the `mfa` middleware (`mfa` or `mfa:<guard>`). */
function needsMfa(middleware: MiddlewareReference[]): boolean {
  return middleware.some((m) => m === 'mfa' || (typeof m === 'string' && m.startsWith('mfa:')))
}

function handlerName(handler: unknown): string | null {
  if (typeof handler === 'string') return handler
  if (Array.isArray(handler)) return `${(handler[0] as { name?: string }).name ?? '?'}@${handler[1]}`
  if (typeof handler === 'function' && handler.name) return `${handler.name}()`
  return null
}

/** The tag of an API route: its first literal segment after `/api` (`/api/posts/{id}` → `posts`). */
function tagOf(path: string): string {
  const segments = path.split('/').filter((s) => s !== '' && !s.startsWith('{'))
  return (segments[0] === 'api' ? segments[1] : segments[0]) ?? 'api'
}

const RESOURCE_SUMMARIES: Record<string, (r: string) => string> = {
  index: (r) => `List ${r}`,
  show: (r) => `Show one of ${r}`,
  store: (r) => `Create one of ${r}`,
  update: (r) => `Update one of ${r}`,
  destroy: (r) => `Delete one of ${r}`,
}

function summaryOf(route: CompiledRoute, method: string, path: string): string {
  const name = route.definition.routeName
  const action = name?.split('.').at(-1)
  const resource = name?.split('.').slice(0, -1).join('.')
  if (action && resource && RESOURCE_SUMMARIES[action]) return RESOURCE_SUMMARIES[action]!(resource)
  return handlerName(route.definition.handler) ?? `${method.toUpperCase()} ${path}`
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

function apiOperation(route: CompiledRoute, method: string, path: string, params: PathParam[]): Record<string, unknown> {
  const abilities = abilitiesOf(route.middleware)
  // A handler chooses its own status; 200 is what a returned value gets.
  const responses: Record<string, unknown> = {
    200: { description: 'Success.', content: { 'application/json': { schema: {} } } },
    401: ref('Unauthorized'),
  }
  if (abilities.length > 0) responses[403] = ref('Forbidden')
  // Behind `mfa`: a token whose login had no second factor is refused (403 E_MFA_REQUIRED).
  else if (needsMfa(route.middleware)) responses[403] = ref('MfaRequired')
  if (params.length > 0) responses[404] = ref('NotFound')
  const operation: Record<string, unknown> = {
    summary: summaryOf(route, method, path),
    tags: [tagOf(path)],
    security: [{ [JWT_SCHEME]: [] }, { [PERSONAL_TOKEN_SCHEME]: abilities }],
    responses,
  }
  const handler = handlerName(route.definition.handler)
  if (handler) operation.description = `Handled by \`${handler}\`.` + (abilities.length ? ` Needs the abilities ${abilities.map((a) => `\`${a}\``).join(', ')}.` : '')
  if (BODY_METHODS.has(method)) {
    const schema = { type: 'object' }
    operation.requestBody = {
      required: false,
      content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema }, 'multipart/form-data': { schema } },
    }
  }
  return operation
}

/**
 * The document of `routes`. Operation ids are route names (a route answering several methods
 * keeps its name for the first and adds `.<method>` for the others), else `<method>_<path>`.
 */
export function buildOpenApiDocument(routes: readonly CompiledRoute[], options: OpenApiOptions = {}): OpenApiDocument {
  const paths: Record<string, Record<string, any>> = {}
  const usedIds = new Set<string>()
  const tags = new Set<string>()
  const uniqueId = (id: string) => {
    let candidate = id
    for (let n = 2; usedIds.has(candidate); n++) candidate = `${id}_${n}`
    usedIds.add(candidate)
    return candidate
  }
  const core = tokenOperations(options.mfaRequired)

  for (const route of routes) {
    const def = route.definition
    const fromApi = def.requiresProvider?.name === 'ApiProvider'
    const token = fromApi && def.routeName ? (core[def.routeName] ?? options.operations?.[def.routeName]) : undefined
    const protectedRoute = inApiStack(route.middleware)
    // Api.routes()' routes, the api stack's routes, and any other JSON route that needs ApiProvider.
    if (!token && !protectedRoute && !(fromApi && route.info.json)) continue

    const methods = route.methods.map((m) => m.toLowerCase()).filter((m) => OPENAPI_METHODS.has(m))
    for (const { path, params } of openApiPaths(route.path)) {
      const item = (paths[path] ??= {})
      if (params.length > 0 && !item.parameters) {
        item.parameters = params.map((p) => ({
          name: p.name,
          in: 'path',
          required: true,
          schema: p.integer ? { type: 'integer', minimum: 0 } : { type: 'string' },
        }))
      }
      methods.forEach((method, i) => {
        if (item[method]) return // declared twice: the first route wins, as in the router
        let operation: Record<string, any>
        if (token) {
          operation = { tags: ['Authentication'], ...clone(token) }
        } else if (protectedRoute) {
          operation = apiOperation(route, method, path, params)
        } else {
          operation = {
            summary: handlerName(def.handler) ?? `${method.toUpperCase()} ${path}`,
            tags: ['Authentication'],
            security: [],
            responses: { 200: { description: 'Success.', content: { 'application/json': { schema: {} } } } },
          }
        }
        const responses = operation.responses as Record<string, unknown>
        if (operation.requestBody) {
          responses[400] ??= ref('BadRequest')
          responses[413] ??= ref('PayloadTooLarge')
          responses[415] ??= ref('UnsupportedMediaType')
          responses[422] ??= ref('ValidationFailed')
        }
        responses[500] ??= ref('InternalError')
        const name = route.name ?? def.routeName
        const baseId = name ? (i === 0 ? name : `${name}.${method}`) : `${method}_${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`
        operation.operationId = uniqueId(baseId)
        for (const tag of operation.tags as string[]) tags.add(tag)
        item[method] = operation
      })
    }
  }

  const info: Record<string, unknown> = { title: options.title || 'API', version: options.version || '1.0.0' }
  if (options.description) info.description = options.description
  const document: OpenApiDocument = { openapi: '3.1.0', info, paths, components: components(options.mfaRequired) }
  if (options.serverUrl) document.servers = [{ url: options.serverUrl }]
  document.tags = [...tags].sort((a, b) => (a === 'Authentication' ? -1 : b === 'Authentication' ? 1 : a.localeCompare(b))).map((name) => ({ name }))
  return document
}
