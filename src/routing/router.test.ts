import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Router, toRouterPath } from './router.js'
import { Route } from './route.js'

const noop = () => 'ok'

describe('Router', () => {
  it('matches verbs and extracts @params', () => {
    const router = new Router()
    router.mount([Route.get('/posts/@id', noop).name('posts.show'), Route.post('/posts', noop)])
    const found = router.match('GET', '/posts/42')
    assert.equal(found.kind, 'found')
    assert.deepEqual(found.kind === 'found' && { ...found.params }, { id: '42' })
    assert.equal(router.match('POST', '/posts').kind, 'found')
  })

  it('tells 405 (with the allowed methods) from 404', () => {
    const router = new Router()
    router.mount([Route.get('/posts', noop), Route.post('/posts', noop)])
    const wrong = router.match('DELETE', '/posts')
    assert.equal(wrong.kind, 'method-not-allowed')
    assert.deepEqual(wrong.kind === 'method-not-allowed' && wrong.allowed.sort(), ['GET', 'HEAD', 'POST'])
    assert.equal(router.match('GET', '/nothing').kind, 'not-found')
  })

  it('@id:int only matches digits', () => {
    const router = new Router()
    router.mount([Route.get('/users/@id:int', noop)])
    assert.equal(router.match('GET', '/users/12').kind, 'found')
    assert.equal(router.match('GET', '/users/abc').kind, 'not-found')
  })

  it('?id is an optional last segment', () => {
    assert.equal(toRouterPath('/users/?id'), '/users/:id?')
    const router = new Router()
    router.mount([Route.get('/users/?id', noop).name('users')])
    assert.equal(router.match('GET', '/users').kind, 'found')
    const one = router.match('GET', '/users/5')
    assert.equal(one.kind === 'found' && one.params.id, '5')
    assert.equal(router.url('users'), '/users')
    assert.equal(router.url('users', { id: 5 }), '/users/5')
  })

  it('Route.api creates the five resource routes with their names', () => {
    const router = new Router()
    router.mount([Route.api('posts', 'PostsController')])
    const table = router.routes.map((r) => [r.methods.join('|'), r.path, r.name, r.definition.handler])
    assert.deepEqual(table, [
      ['GET', '/posts', 'posts.index', 'PostsController@index'],
      ['GET', '/posts/@id', 'posts.show', 'PostsController@show'],
      ['POST', '/posts', 'posts.store', 'PostsController@store'],
      ['PUT|PATCH', '/posts/@id', 'posts.update', 'PostsController@update'],
      ['DELETE', '/posts/@id', 'posts.destroy', 'PostsController@destroy'],
    ])
  })

  it('groups apply prefix, middleware and name prefix; routes can drop a stack', () => {
    const router = new Router()
    router.mount(
      [Route.group([Route.get('/users', noop).name('users').middleware(['auth']), Route.get('/open', noop).withoutMiddleware('web')], { prefix: '/admin', middleware: ['admin'], name: 'admin.' })],
      { middleware: ['web'] },
    )
    const [users, open] = router.routes
    assert.equal(users!.path, '/admin/users')
    assert.equal(users!.name, 'admin.users')
    assert.deepEqual(users!.middleware, ['web', 'admin', 'auth'])
    assert.deepEqual(open!.middleware, ['admin'])
  })

  it('builds URLs for named routes, encoding params and adding extras as query', () => {
    const router = new Router()
    router.mount([Route.get('/posts/@id', noop).name('posts.show')])
    assert.equal(router.url('posts.show', { id: 7 }), '/posts/7')
    assert.equal(router.url('posts.show', { id: 'a b/c', page: 2 }), '/posts/a%20b%2Fc?page=2')
    assert.throws(() => router.url('posts.show'), /needs the parameter "id"/)
    assert.throws(() => router.url('nope'), /No route is named/)
  })

  it('refuses duplicate names and unknown methods at startup', () => {
    const router = new Router()
    assert.throws(() => router.mount([Route.get('/a', noop).name('x'), Route.get('/b', noop).name('x')]), /Two routes are named "x"/)
    assert.throws(() => new Router().mount([Route.match(['FETCH'], '/a', noop)]), /Unknown HTTP method/)
  })

  it('a route listed twice, identically, is one route; a different route on the same path is refused', () => {
    const router = new Router()
    const twice = () => [Route.get('/login', 'auth/LoginController@show').name('login'), Route.post('/login', 'auth/LoginController@store').middleware(['guest'])]
    router.mount([...twice(), ...twice()])
    assert.equal(router.routes.length, 2)
    assert.equal(router.match('GET', '/login').kind, 'found')
    assert.throws(() => router.mount([Route.get('/login', 'OtherController@show')]), /cannot be added/)
    assert.throws(() => router.mount([Route.post('/login', 'auth/LoginController@store')]), /cannot be added/, 'same handler, other middleware')
  })

  it('expands a deferred entry with its owner when mounted, in place, inside its group; without an owner it is refused', () => {
    const owner = { paths: ['/a', '/b'] }
    const seen: unknown[] = []
    const deferred = Route.deferred((app) => {
      seen.push(app)
      return (app as typeof owner).paths.map((p) => Route.get(p, noop).name(p.slice(1)))
    })
    const router = new Router(owner)
    router.mount([Route.get('/first', noop), Route.group([deferred], { prefix: '/in', name: 'in.' }), Route.get('/last', noop)])
    assert.deepEqual(router.routes.map((r) => r.path), ['/first', '/in/a', '/in/b', '/last'])
    assert.deepEqual(seen, [owner])
    assert.equal(router.url('in.b'), '/in/b')
    assert.throws(() => new Router().mount([deferred]), /mount them on app\.router/)
  })

  it('marks JSON prefixes for unmatched paths', () => {
    const router = new Router()
    router.mount([Route.get('/me', noop)], { prefix: '/api', json: true })
    assert.equal(router.isJsonPath('/api/nothing'), true)
    assert.equal(router.isJsonPath('/apiary'), false)
    assert.equal(router.routes[0]!.info.json, true)
  })
})
