/**
 * The API feature list and what ApiProvider and `Api.routes()` read from it: the routes in list
 * order (the order `Api.routes()` has always had), each piece's checked slice of `DRIVERS.jwt`
 * (a mistake names the key), what the pieces that are on add to the JwtService, and their boot.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Route } from '../../routing/route.js'
import type { Application } from '../../foundation/application.js'
import type { MiddlewareClass } from '../../http/middleware.js'
import type { DriverSettings } from '../api-config.js'
import { Api } from '../api.js'
import { defineApiFeature, type ApiOptionsContext } from './contract.js'
import { apiFeatures, epochsFeature, familiesFeature, openapiFeature, personalTokensFeature } from './index.js'
import { apiFeatureRoutes, registerApiFeatures, ResolvedApiFeatures } from './registry.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

function context(settings: DriverSettings): ApiOptionsContext {
  const cookies = { pack: (_: string, value: string) => value, unpack: (_: string, value: string) => value }
  const app = { make: () => cookies, log: { warn() {} } } as unknown as Application
  const model = { connection: undefined, getTable: () => 'users', getPrimaryKey: () => 'id' }
  return { app, settings, jwt: () => ({ algorithm: 'HS512', secret: 'x'.repeat(64), model, expires: 15, version: null, authenticates: false }) }
}

describe('the API feature list', () => {
  it('lists each piece once, and every migration it names exists', () => {
    const names = apiFeatures().map((f) => f.name)
    assert.deepEqual(names, ['personal_tokens', 'token_routes', 'epochs', 'families', 'jwks', 'openapi'])
    for (const feature of apiFeatures()) {
      for (const migration of feature.migrations ?? []) assert.ok(existsSync(`${ROOT}stubs/migrations/${migration}.ts`), `${feature.name}: ${migration}`)
    }
    assert.throws(() => defineApiFeature({ name: 'Token-Routes' }), /snake_case/)
    assert.throws(() => ResolvedApiFeatures.resolve(context({}), [defineApiFeature({ name: 'a' }), defineApiFeature({ name: 'a' })]), /Two API features are named "a"/)
  })

  it('Api.routes() lists the pieces\' routes in the order they have always had', () => {
    assert.deepEqual(
      Api.routes().map((r) => `${r.methods[0]} ${r.path} ${r.routeName}`),
      [
        'GET /account/tokens account.tokens',
        'POST /account/tokens account.tokens.store',
        'POST /account/tokens/revoke-all account.tokens.revoke_all',
        'POST /account/tokens/@id/revoke account.tokens.revoke',
        'POST /api/auth api.auth',
        'POST /api/auth/two-factor api.auth.two_factor',
        'POST /api/reauth api.reauth',
        'POST /api/logout api.logout',
        'POST /api/revoke api.revoke',
        'GET /.well-known/jwks.json api.jwks',
        'GET /api/openapi.json api.openapi',
      ],
    )
    const custom = Api.routes({ tokensPage: false, authRoute: '/token', reauthRoute: '/token/again', jwksRoute: '/keys', openapiRoute: '/doc' })
    assert.deepEqual(custom.map((r) => r.path), ['/token', '/token/two-factor', '/token/again', '/api/logout', '/api/revoke', '/keys', '/doc'])
    for (const route of custom) {
      assert.equal(route.json, true, route.path)
      assert.equal(route.csrfExempt, true, route.path)
      assert.deepEqual(route.requiresProvider, { name: 'ApiProvider', key: 'Api.routes() in routes/web.ts' })
    }
  })

  it('checks each piece\'s keys of DRIVERS.jwt, naming the key', () => {
    const resolve = (settings: DriverSettings) => ResolvedApiFeatures.resolve(context(settings))
    assert.throws(() => resolve({ store: 'redis' }), /DRIVERS\.jwt\.store must be 'column' or 'table', got "redis"/)
    assert.throws(() => resolve({ store: 'table', reuse_window: 7200 }), /DRIVERS\.jwt\.reuse_window must be a number of seconds from 0 to 3600/)
    assert.throws(() => resolve({ store: 'table', max_age: 0 }), /DRIVERS\.jwt\.max_age must be a positive number of minutes or null/)
    assert.throws(() => resolve({ revocation: 'always' }), /DRIVERS\.jwt\.revocation must be 'epoch' or null/)
    assert.throws(() => resolve({ openapi: 'yes' }), /DRIVERS\.jwt\.openapi must be true or false/)
    assert.throws(() => resolve({ abilities: 'posts:read' }), /DRIVERS\.jwt\.abilities must be a list of ability names/)
    assert.throws(() => resolve({ abilities: ['posts:read', 'no spaces'] }), /DRIVERS\.jwt\.abilities: "no spaces" is not an ability name/)
  })

  it('turns a piece on by its settings, and gives the JwtService what the pieces that are on add', () => {
    const plain = ResolvedApiFeatures.resolve(context({}))
    assert.equal(plain.on(familiesFeature), false)
    assert.equal(plain.on(epochsFeature), false)
    assert.equal(plain.on(openapiFeature), true)
    assert.deepEqual(plain.options(personalTokensFeature), { abilities: null })
    assert.deepEqual(plain.jwtSettings(), {})
    const full = ResolvedApiFeatures.resolve(context({ store: 'table', revocation: 'epoch', abilities: ['posts:read', '*'] }))
    assert.deepEqual(full.options(personalTokensFeature), { abilities: ['posts:read', '*'] })
    const families = full.options(familiesFeature)!
    assert.deepEqual([families.reuseWindow, families.maxAge], [10, 43200])
    const settings = full.jwtSettings()
    assert.equal(settings.families, families)
    assert.equal(settings.epochs, full.options(epochsFeature))
  })

  it('boots only the pieces that are on: route middleware when absent, then install; registers every piece', async () => {
    const calls: string[] = []
    const Own = class {} as unknown as MiddlewareClass
    const Theirs = class {} as unknown as MiddlewareClass
    const on = defineApiFeature({ name: 'on', options: () => ({ n: 1 }), middleware: { mine: [Theirs], taken: [Theirs] }, install: (_app, o) => void calls.push(`install on ${o.n}`), register: () => void calls.push('register on'), routes: () => [Route.get('/on', () => 'on')] })
    const off = defineApiFeature({ name: 'off', options: () => null, middleware: { other: [Theirs] }, install: () => void calls.push('install off'), register: () => void calls.push('register off'), routes: () => [Route.get('/off', () => 'off')] })
    const app = { kernel: { routeMiddleware: { taken: [Own] } as Record<string, MiddlewareClass[]> } } as unknown as Application
    registerApiFeatures(app, [on, off])
    await ResolvedApiFeatures.resolve(context({}), [on, off]).install(app)
    assert.deepEqual(calls, ['register on', 'register off', 'install on 1'])
    assert.deepEqual(app.kernel.routeMiddleware, { taken: [Own], mine: [Theirs] })
    // Routes do not depend on the settings (routes/web.ts is read without the app).
    assert.deepEqual(apiFeatureRoutes({}, [on, off]).map((r) => r.path), ['/on', '/off'])
  })
})
