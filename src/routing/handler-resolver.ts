/**
 * @module routing/handler-resolver
 * What a resolved route runs (`RouteRuntime`: its handler and middleware instances) and
 * `resolveMiddleware`, which turns middleware references (`'auth'`, `'guard:jwt'`, a class) into
 * instances once, at startup, so an unknown stack stops the app with a message instead of failing
 * a request. Handlers (controllers of the app) are resolved by foundation/route-resolver.ts.
 */
import type { HttpApplication } from '../http/http-application.js'
import type { HttpContext } from '../http/context.js'
import type { Middleware, MiddlewareClass } from '../http/middleware.js'
import type { MiddlewareReference } from './route-definition.js'
import { RouteDefinitionError } from './errors.js'

export type ResolvedHandler = (ctx: HttpContext) => unknown

export interface ResolvedMiddleware {
  instance: Middleware
  args: string[]
}

export interface RouteRuntime {
  handler: ResolvedHandler
  middleware: ResolvedMiddleware[]
}

export function resolveMiddleware(app: HttpApplication, refs: MiddlewareReference[], where: string): ResolvedMiddleware[] {
  const instances = app.get<Map<MiddlewareClass, Middleware>>('middleware.instances')!
  const instance = (cls: MiddlewareClass): Middleware => {
    let m = instances.get(cls)
    if (!m) {
      m = new cls(app)
      instances.set(cls, m)
    }
    return m
  }
  const out: ResolvedMiddleware[] = []
  for (const ref of refs) {
    if (typeof ref === 'function') {
      out.push({ instance: instance(ref), args: [] })
      continue
    }
    const colon = ref.indexOf(':')
    const name = colon === -1 ? ref : ref.slice(0, colon)
    const args = colon === -1 ? [] : ref.slice(colon + 1).split(',').map((a) => a.trim())
    const stack = app.kernel.routeMiddleware[name]
    if (!stack) throw new RouteDefinitionError(`${where}: unknown middleware "${name}". Add it to routeMiddleware in Kernel.ts.`)
    for (const cls of Array.isArray(stack) ? stack : [stack]) {
      const m = instance(cls)
      // A middleware that takes arguments checks them now: `guard:typo` stops the boot.
      m.validate?.(`${where}: "${ref}"`, ...args)
      out.push({ instance: m, args })
    }
  }
  return out
}

