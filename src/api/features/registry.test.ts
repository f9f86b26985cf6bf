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
import type { RouteDefinition } from '../../routing/route-definition.js'
import { DeferredRoutes, RouteGroup, type RouteEntry } from '../../routing/route-group.js'
import { CREDENTIAL_BODY_LIMIT } from '../../http/body-parser.js'
import { defineFeature } from '../../auth/features/contract.js'
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

/**
 * An app whose auth feature list is `api_pair`, with two API routes (and it is on), and `stepper`,
 * off, which serves the login's second step (listed whatever the features).
 */
const mountingApp = {
  has: (key: string) => key === 'auth.features',
  make: () => [
    defineFeature({ name: 'api_pair', apiRoutes: ({ authRoute }) => [Route.post(`${authRoute}/pair`, () => '').name('api.pair'), Route.post(`${authRoute}/pair/verify`, () => '').name('api.pair.verify')] }),
    defineFeature({ name: 'stepper', secondStep: { page: '/step', routes: () => [], apiRoutes: ({ authRoute }) => [Route.post(`${authRoute}/step`, () => '').name('api.auth.step')] } }),
  ],
  get: (key: string) => (key === 'auth.config' ? { features: new Set(['api_pair']) } : undefined),
} as unknown as Application

/** `entries` as the router mounting them on `mountingApp` sees them: groups and deferred entries expanded. */
function expand(entries: RouteEntry[]): RouteDefinition[] {
  return entries.flatMap((entry): RouteDefinition[] => {
    if (Array.isArray(entry)) return expand(entry)
    if (entry instanceof RouteGroup) return expand(entry.routes)
    if (entry instanceof DeferredRoutes) return expand(entry.build(mountingApp))
    return [entry]
  })
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

  it('Api.routes() lists the pieces\' routes in the order they have always had, the auth features\' API routes after the second step', () => {
    assert.deepEqual(
      expand(Api.routes()).map((r) => `${r.methods[0]} ${r.path} ${r.routeName}`),
      [
        'GET /account/tokens account.tokens',
        'POST /account/tokens account.tokens.store',
        'POST /account/tokens/revoke-all account.tokens.revoke_all',
        'POST /account/tokens/@id/revoke account.tokens.revoke',
        'POST /api/auth api.auth',
        'POST /api/auth/step api.auth.step',
        'POST /api/auth/pair api.pair',
        'POST /api/auth/pair/verify api.pair.verify',
        'POST /api/reauth api.reauth',
        'POST /api/logout api.logout',
        'POST /api/revoke api.revoke',
        'GET /.well-known/jwks.json api.jwks',
        'GET /api/openapi.json api.openapi',
      ],
    )
    const custom = expand(Api.routes({ tokensPage: false, authRoute: '/token', reauthRoute: '/token/again', jwksRoute: '/keys', openapiRoute: '/doc' }))
    assert.deepEqual(custom.map((r) => r.path), ['/token', '/token/step', '/token/pair', '/token/pair/verify', '/token/again', '/api/logout', '/api/revoke', '/keys', '/doc'])
    for (const route of custom) {
      assert.equal(route.json, true, route.path)
      assert.equal(route.csrfExempt, true, route.path)
      assert.deepEqual(route.requiresProvider, { name: 'ApiProvider', key: 'Api.routes() in routes/web.ts' })
      assert.ok(route.excludedMiddleware.includes('web'), route.path)
    }
    // Every token route (each takes a password, a code or a token) has the credential body limit; the GETs keep the app's.
    const posts = custom.filter((r) => r.methods.includes('POST'))
    assert.equal(posts.length, 7)
    for (const route of posts) assert.equal(route.maxBodyBytes, CREDENTIAL_BODY_LIMIT, route.path)
    for (const route of custom.filter((r) => r.methods.includes('GET'))) assert.equal(route.maxBodyBytes, undefined, route.path)
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
    assert.deepEqual(expand(apiFeatureRoutes({}, [on, off])).map((r) => r.path), ['/on', '/off'])
  })
})
