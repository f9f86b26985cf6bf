/**
 * @module routing/route
 * The `Route` facade used in `routes/*.ts`:
 * `Route.get('/posts/@id', 'PostsController@show').name('posts.show')`.
 */
import { RouteDefinition, type RouteHandler } from './route-definition.js'
import { DeferredRoutes, RouteGroup, type RouteEntry, type RouteGroupOptions } from './route-group.js'

function define(methods: string[], path: string, handler: RouteHandler): RouteDefinition {
  return new RouteDefinition(methods, path, handler)
}

/** `'PostsController'` + `'index'` → `'PostsController@index'`; classes become `[Class, method]`. */
function action(controller: string | (new (...a: any[]) => any), method: string): RouteHandler {
  return typeof controller === 'string' ? `${controller}@${method}` : [controller, method]
}

export const Route = {
  get: (path: string, handler: RouteHandler) => define(['GET'], path, handler),
  post: (path: string, handler: RouteHandler) => define(['POST'], path, handler),
  put: (path: string, handler: RouteHandler) => define(['PUT'], path, handler),
  patch: (path: string, handler: RouteHandler) => define(['PATCH'], path, handler),
  delete: (path: string, handler: RouteHandler) => define(['DELETE'], path, handler),
  options: (path: string, handler: RouteHandler) => define(['OPTIONS'], path, handler),
  match: (methods: string[], path: string, handler: RouteHandler) => define(methods, path, handler),
  any: (path: string, handler: RouteHandler) => define(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], path, handler),

  /**
   * The five resource routes: index, show, store, update (PUT and PATCH), destroy, named
   * `<resource>.<action>`.
   */
  api(resource: string, controller: string | (new (...a: any[]) => any)): RouteGroup {
    const base = '/' + resource.replace(/^\/+|\/+$/g, '')
    const name = resource.replace(/^\/+|\/+$/g, '').replace(/\//g, '.')
    return new RouteGroup([
      define(['GET'], base, action(controller, 'index')).name(`${name}.index`),
      define(['GET'], `${base}/@id`, action(controller, 'show')).name(`${name}.show`),
      define(['POST'], base, action(controller, 'store')).name(`${name}.store`),
      define(['PUT', 'PATCH'], `${base}/@id`, action(controller, 'update')).name(`${name}.update`),
      define(['DELETE'], `${base}/@id`, action(controller, 'destroy')).name(`${name}.destroy`),
    ])
  },

  group(routes: RouteEntry[] | RouteEntry, options: RouteGroupOptions = {}): RouteGroup {
    return new RouteGroup(Array.isArray(routes) ? routes : [routes], options)
  },

  /** Entries built when mounted, from the application that mounts them (see `DeferredRoutes`). */
  deferred(build: (owner: unknown) => RouteEntry[]): DeferredRoutes {
    return new DeferredRoutes(build)
  },
}
