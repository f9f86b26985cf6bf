/**
 * CorsMiddleware and CorsProvider in one process: an application assembled by hand, served
 * through the real RequestHandler with `inject`. A counting middleware placed after CORS in
 * `httpMiddleware` and one in the route's stack show that a preflight reaches neither.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Application } from '../foundation/application.js'
import { HttpKernel } from '../foundation/http-kernel.js'
import { CookieJar } from '../http/cookie-jar.js'
import { ExceptionHandler } from '../http/exception-handler.js'
import { Middleware } from '../http/middleware.js'
import { TooManyRequestsError } from '../http/errors.js'
import { RequestHandler } from '../http/request-handler.js'
import { resolveRoute } from '../foundation/route-resolver.js'
import { Route } from '../routing/route.js'
import { Logger } from '../support/logger.js'
import { inject, type InjectRequest } from '../testing/inject.js'
import { CorsProvider } from './cors-provider.js'
import { CorsMiddleware } from './cors-middleware.js'

const SPA = 'https://spa.example'

async function build(cors: unknown, options: { env?: string; listed?: boolean } = {}) {
  const app = new Application('/nonexistent', { log: new Logger({ sink: () => {} }) })
  app.bind('app.mode', 'http')
  app.bind('cookies', new CookieJar('k'.repeat(40)))
  app.bind('exceptions', new ExceptionHandler(app))
  app.bind('middleware.instances', new Map())
  if (cors !== undefined) app.setConfig('cors', cors)
  const seen: string[] = []
  class Counting extends Middleware {
    override before() {
      seen.push('global')
    }
  }
  class Stack extends Middleware {
    override before() {
      seen.push('stack')
    }
  }
  app.kernel = new HttpKernel(app)
  app.kernel.httpMiddleware = options.listed ? [Counting, CorsMiddleware] : [Counting]
  app.kernel.routeMiddleware = { web: [Stack] }
  const previous = process.env.CORS_ORIGINS
  if (options.env === undefined) delete process.env.CORS_ORIGINS
  else process.env.CORS_ORIGINS = options.env
  try {
    const provider = new CorsProvider(app)
    app.providers.push(provider)
    await provider.register()
  } finally {
    if (previous === undefined) delete process.env.CORS_ORIGINS
    else process.env.CORS_ORIGINS = previous
  }
  app.router.mount(
    [
      Route.get('/items', () => ({ items: [] })),
      Route.post('/items', () => ({ created: true })),
      Route.get('/busy', () => {
        throw new TooManyRequestsError(7)
      }),
      Route.get('/vary', ({ response }) => {
        response.header('Vary', 'Accept')
        return 'ok'
      }),
    ],
    { middleware: ['web'] },
  )
  for (const route of app.router.routes) route.runtime = await resolveRoute(app, route)
  const handler = new RequestHandler(app)
  return { app, seen, request: (req: Partial<InjectRequest>) => inject(handler.listener, { method: 'GET', url: '/', ...req }) }
}

const preflight = (origin: string, method: string, headers?: string) => ({
  origin,
  'access-control-request-method': method,
  ...(headers ? { 'access-control-request-headers': headers } : {}),
})

describe('CorsProvider', () => {
  it('adds CorsMiddleware first only when there are origins, and never twice', async () => {
    assert.deepEqual((await build(undefined)).app.kernel.httpMiddleware.length, 1)
    assert.equal((await build({ CORS: { origins: [] } })).app.kernel.httpMiddleware.length, 1)
    const on = await build({ CORS: { origins: [SPA] } })
    assert.equal(on.app.kernel.httpMiddleware[0], CorsMiddleware)
    assert.equal(on.app.kernel.httpMiddleware.length, 2)
    const listed = await build({ CORS: { origins: [SPA] } }, { listed: true })
    assert.equal(listed.app.kernel.httpMiddleware.filter((m) => m === CorsMiddleware).length, 1, 'the app placed it itself')
  })

  it('stops the boot on a bad origin', async () => {
    await assert.rejects(build({ CORS: { origins: ['*'] } }), /config\/cors\.ts: CORS\.origins has "\*"/)
    await assert.rejects(build({ CORS: { origins: [] } }, { env: 'null' }), /CORS_ORIGINS has "null"/)
  })
})

describe('CorsMiddleware', () => {
  it('answers a preflight before any other middleware or stack runs', async () => {
    const { request, seen } = await build({ CORS: { origins: [SPA], credentials: true, max_age: 30 } })
    const r = await request({ method: 'OPTIONS', url: '/items', headers: preflight(SPA, 'POST', 'Content-Type,Authorization') })
    assert.equal(r.statusCode, 204)
    assert.equal(r.headers['access-control-allow-methods'], 'GET, HEAD, POST')
    assert.equal(r.headers['access-control-allow-headers'], 'Authorization, Content-Type, X-CSRF-TOKEN, X-Organization')
    assert.equal(r.headers['access-control-max-age'], '30')
    assert.equal(r.headers['access-control-allow-origin'], SPA)
    assert.equal(r.headers['access-control-allow-credentials'], 'true')
    assert.equal(r.headers.vary, 'Origin')
    assert.deepEqual(seen, [])
    const refused = await request({ method: 'OPTIONS', url: '/items', headers: preflight(SPA, 'DELETE') })
    assert.equal(refused.statusCode, 403)
    assert.equal(JSON.parse(refused.body.toString()).code, 'E_FORBIDDEN')
    assert.deepEqual(seen, [])
  })

  it('decorates error answers and merges Vary', async () => {
    const { request } = await build({ CORS: { origins: [SPA] } })
    const busy = await request({ url: '/busy', headers: { origin: SPA, accept: 'application/json' } })
    assert.equal(busy.statusCode, 429)
    assert.equal(busy.headers['retry-after'], '7')
    assert.equal(busy.headers['access-control-allow-origin'], SPA)
    assert.equal(busy.headers['access-control-allow-credentials'], undefined)
    assert.equal(busy.headers['access-control-expose-headers'], 'Retry-After, WWW-Authenticate, X-CSRF-TOKEN')
    const vary = await request({ url: '/vary', headers: { origin: 'https://other.example' } })
    assert.equal(vary.headers.vary, 'Accept, Origin')
    assert.equal(vary.headers['access-control-allow-origin'], undefined)
  })

  it('does nothing at all without origins', async () => {
    const { request, seen } = await build({ CORS: { origins: [] } })
    const r = await request({ method: 'OPTIONS', url: '/items', headers: preflight(SPA, 'POST') })
    assert.equal(r.statusCode, 405)
    assert.equal(r.headers.vary, undefined)
    assert.equal(r.headers['access-control-allow-origin'], undefined)
    assert.deepEqual(seen, ['global'])
  })
})
