/**
 * Black-box: `node craft openapi` and `GET /api/openapi.json`. The document must pass a
 * well-kept OpenAPI validator (@readme/openapi-parser: the OpenAPI 3.1 JSON Schema plus its
 * semantic rules — unique operation ids, path parameters declared — so a document that merely
 * looks right fails), and must describe every route of routes/api.ts (a `Route.api` resource as
 * its five routes) and of `Api.routes()`, the two Bearer schemes and the error bodies. The route
 * serves the same document only when `DRIVERS.jwt.openapi` is true.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { validate, compileErrors } from '@readme/openapi-parser'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),
  Route.get('/reports/@year:int', ({ params }) => ({ year: params.year })).middleware(['ability:reports:read']),
  Route.post('/imports', () => ({ ok: true })),
  Route.api('posts', 'PostsController'),
]
`

async function assertValid(document: unknown): Promise<void> {
  // The validator dereferences in place: give it a copy.
  const result = await validate(structuredClone(document) as any)
  assert.ok(result.valid, result.valid ? '' : compileErrors(result))
  assert.equal(result.specification, 'OpenAPI')
}

/** `[method, path]` of every operation in the document. */
function operations(document: any): string[] {
  const out: string[] = []
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const method of Object.keys(item)) if (method !== 'parameters') out.push(`${method.toUpperCase()} ${path}`)
  }
  return out.sort()
}

describe('OpenAPI document', () => {
  let app: TestApp
  let server: Server
  let document: any

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app, { apiRoutes: API_ROUTES })
    assert.equal(app.craft('controller', 'PostsController', '-a').code, 0)
    migrate(app)
  })
  after(async () => {
    await server?.stop()
    app?.cleanup()
  })

  it('craft openapi writes openapi.json, which the validator accepts as OpenAPI 3.1', async () => {
    const r = app.craft('openapi')
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /Created openapi\.json \(OpenAPI 3\.1\.0, \d+ operations\)/)
    document = JSON.parse(app.read('openapi.json'))
    assert.equal(document.openapi, '3.1.0')
    assert.equal(typeof document.info.title, 'string')
    assert.equal(typeof document.info.version, 'string')
    await assertValid(document)
  })

  it('has every API route as an operation, and no web page', () => {
    assert.deepEqual(operations(document), [
      'DELETE /api/posts/{id}',
      'GET /.well-known/jwks.json',
      'GET /api/me',
      'GET /api/openapi.json',
      'GET /api/posts',
      'GET /api/posts/{id}',
      'GET /api/reports/{year}',
      'PATCH /api/posts/{id}',
      'POST /api/auth',
      'POST /api/auth/two-factor',
      'POST /api/imports',
      'POST /api/logout',
      'POST /api/posts',
      'POST /api/reauth',
      'POST /api/revoke',
      'PUT /api/posts/{id}',
    ])
    // Cross-check with routes:list: every route of the api stack is in the document.
    const listed = app.craft('routes:list')
    assert.equal(listed.code, 0, listed.stderr)
    const apiRoutes = listed.stdout.split('\n').map((l) => l.split(/\s+/)).filter(([, path]) => path?.startsWith('/api/'))
    assert.ok(apiRoutes.length >= 12, listed.stdout)
    for (const [methods, path] of apiRoutes) {
      const templated = path!.replace(/@(\w+)(:\w+)?/g, '{$1}')
      for (const m of methods!.split('|')) assert.ok(document.paths[templated]?.[m.toLowerCase()], `${m} ${templated} missing`)
    }
    assert.equal(document.paths['/login'], undefined)
    assert.equal(document.paths['/register'], undefined)
  })

  it('describes a Route.api resource as its five routes, with the path parameter', () => {
    const collection = document.paths['/api/posts']
    const member = document.paths['/api/posts/{id}']
    assert.equal(collection.get.operationId, 'posts.index')
    assert.equal(collection.post.operationId, 'posts.store')
    assert.equal(member.get.operationId, 'posts.show')
    assert.equal(member.put.operationId, 'posts.update')
    assert.equal(member.patch.operationId, 'posts.update.patch')
    assert.equal(member.delete.operationId, 'posts.destroy')
    assert.deepEqual(member.parameters, [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }])
    assert.deepEqual(document.paths['/api/reports/{year}'].parameters[0].schema, { type: 'integer', minimum: 0 })
    for (const op of [collection.get, collection.post, member.get, member.put, member.patch, member.delete]) {
      assert.deepEqual(op.tags, ['posts'])
      assert.match(op.description, /PostsController@/)
    }
    assert.ok(collection.post.requestBody.content['application/json'])
    assert.equal(collection.get.requestBody, undefined)
  })

  it('declares the Bearer schemes: JWT and personal access token, with abilities as roles', () => {
    const schemes = document.components.securitySchemes
    assert.deepEqual({ ...schemes.bearerJwt, description: undefined }, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: undefined })
    assert.equal(schemes.personalAccessToken.type, 'http')
    assert.equal(schemes.personalAccessToken.scheme, 'bearer')
    assert.match(schemes.personalAccessToken.bearerFormat, /^trw_/)
    assert.deepEqual(document.paths['/api/me'].get.security, [{ bearerJwt: [] }, { personalAccessToken: [] }])
    const report = document.paths['/api/reports/{year}'].get
    assert.deepEqual(report.security, [{ bearerJwt: [] }, { personalAccessToken: ['reports:read'] }])
    assert.deepEqual(report.responses['403'], { $ref: '#/components/responses/Forbidden' })
    // The token routes are public, except logout (the JWT to end).
    for (const path of ['/api/auth', '/api/reauth', '/api/revoke']) assert.deepEqual(document.paths[path].post.security, [])
    assert.deepEqual(document.paths['/api/logout'].post.security, [{ bearerJwt: [] }])
    assert.deepEqual(Object.keys(document.paths['/api/logout'].post.responses).sort(), ['204', '401', '500'])
  })

  it('describes the error bodies: {message, code}, and {message, code, errors} for 422', () => {
    const { Error: error, ValidationError: validation } = document.components.schemas
    assert.deepEqual(error.required, ['message', 'code'])
    assert.deepEqual(validation.required, ['message', 'code', 'errors'])
    assert.equal(validation.properties.code.const, 'E_VALIDATION')
    const me = document.paths['/api/me'].get.responses
    assert.deepEqual(me['401'], { $ref: '#/components/responses/Unauthorized' })
    assert.ok(document.components.responses.Unauthorized.headers['WWW-Authenticate'])
    assert.deepEqual(me['500'], { $ref: '#/components/responses/InternalError' })
    const store = document.paths['/api/posts'].post.responses
    for (const status of ['400', '401', '413', '415', '422', '500']) assert.ok(store[status], `POST /api/posts ${status}`)
    assert.ok(document.paths['/api/posts/{id}'].get.responses['404'])
    const auth = document.paths['/api/auth'].post
    assert.deepEqual(auth.requestBody.content['application/json'].schema.required, ['username', 'password'])
    assert.equal(auth.responses['401'].content['application/json'].example.code, 'E_INVALID_CREDENTIALS')
    assert.deepEqual(auth.responses['429'], { $ref: '#/components/responses/TooManyRequests' })
    const reauthErrors = Object.values(document.paths['/api/reauth'].post.responses['401'].content['application/json'].examples).map((e: any) => e.value.code)
    assert.deepEqual(reauthErrors, ['E_REAUTH_FAILED', 'E_TOKEN_REUSED'])
    assert.ok(document.paths['/api/revoke'].post.responses['422'])
  })

  it('GET /api/openapi.json is 404 until DRIVERS.jwt.openapi is true, then serves the same document', async () => {
    server = await app.serve()
    let r = await new Client(server.url).get('/api/openapi.json')
    assert.equal(r.status, 404)
    assert.equal(r.json().code, 'E_NOT_FOUND')
    // The documented error bodies are the real ones.
    const unauthorized = await new Client(server.url).get('/api/me')
    assert.deepEqual(Object.keys(unauthorized.json()).sort(), ['code', 'message'])
    await server.stop()

    app.edit('config/api.ts', (t) => t.replace('version: null', 'version: null, openapi: true'))
    server = await app.serve()
    r = await new Client(server.url).get('/api/openapi.json')
    assert.equal(r.status, 200, r.text)
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/)
    assert.equal(r.setCookies.length, 0)
    assert.deepEqual(r.json(), document)
    await assertValid(r.json())
    // Public: a token is neither needed nor looked at.
    const withJunk = await new Client(server.url).get('/api/openapi.json', { authorization: 'Bearer junk' })
    assert.equal(withJunk.status, 200)
  })

  it('--output writes elsewhere', () => {
    const r = app.craft('openapi', '--output', 'docs/api.json')
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(JSON.parse(app.read('docs/api.json')).paths, document.paths)
  })
})
