import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { Application } from '../foundation/application.js'
import { Logger } from '../support/logger.js'
import { CookieJar } from './cookie-jar.js'
import { HttpContext } from './context.js'
import '../session/context-session.js'
import { Request } from './request.js'
import { Response } from './response.js'
import { ExceptionHandler } from './exception-handler.js'
import { NotFoundError, TooManyRequestsError, ValidationError } from './errors.js'
import { Route } from '../routing/route.js'

const jar = new CookieJar('base64:' + Buffer.alloc(32, 1).toString('base64'))

function context(headers: Record<string, string> = {}, options: { debug?: boolean; json?: boolean; url?: string; route?: string } = {}) {
  const lines: string[] = []
  const app = new Application('/tmp', { log: new Logger({ sink: (line) => lines.push(line) }) })
  app.isDebug = options.debug ?? false
  const raw = Readable.from([]) as unknown as IncomingMessage
  raw.headers = headers
  raw.method = 'GET'
  raw.url = options.url ?? '/x'
  const request = new Request(raw, { trustProxy: 0, cookies: jar })
  const response = new Response({ cookies: jar, secure: false, urlFor: () => '/', referer: headers.referer })
  const route = options.route ?? (options.json ? '/x' : null)
  const ctx = new HttpContext(app, request, response, route ? { path: route, methods: ['GET'], json: options.json ?? false } : null)
  return { ctx, handler: new ExceptionHandler(app), lines }
}

describe('ExceptionHandler', () => {
  it('renders HttpErrors as JSON with their status, code and headers when JSON is wanted', () => {
    const { ctx, handler } = context({ accept: 'application/json' })
    handler.render(ctx, new TooManyRequestsError(30))
    assert.equal(ctx.response.statusCode, 429)
    assert.equal(ctx.response.getHeader('retry-after'), '30')
    assert.equal(JSON.parse(String(ctx.response.body)).code, 'E_TOO_MANY_REQUESTS')
  })

  it('renders an HTML page for browsers', () => {
    const { ctx, handler } = context({ accept: 'text/html' })
    handler.render(ctx, new NotFoundError())
    assert.equal(ctx.response.statusCode, 404)
    assert.match(String(ctx.response.getHeader('content-type')), /text\/html/)
    assert.match(String(ctx.response.body), /404/)
  })

  it('API routes answer JSON whatever the Accept header', () => {
    const { ctx, handler } = context({ accept: 'text/html' }, { json: true })
    handler.render(ctx, new NotFoundError())
    assert.deepEqual(JSON.parse(String(ctx.response.body)), { message: 'Not found.', code: 'E_NOT_FOUND' })
  })

  it('validation errors carry per-field messages', () => {
    const { ctx, handler } = context({ accept: 'application/json' })
    handler.render(ctx, new ValidationError({ email: ['The email field is required.'] }))
    assert.equal(ctx.response.statusCode, 422)
    assert.deepEqual(JSON.parse(String(ctx.response.body)).errors, { email: ['The email field is required.'] })
  })

  it('a failed web form goes back to the Referer, else the back option, else its own path if that answers GET, else /', () => {
    const back = (url: string, headers: Record<string, string> = {}, error = new ValidationError({ name: ['Required.'] })) => {
      const { ctx, handler } = context(headers, { url })
      ctx.app.router.mount([Route.get('/form', () => 'form'), Route.post('/form', () => 'sent'), Route.post('/only-post', () => 'sent')])
      const flashed: unknown[] = []
      handler.formErrors.push((_ctx, e) => flashed.push(e.errors) > 0)
      handler.render(ctx, error)
      assert.equal(ctx.response.statusCode, 302)
      assert.deepEqual(flashed[0], { name: ['Required.'] })
      return ctx.response.getHeader('location')
    }
    assert.equal(back('/form'), '/form', 'the form answers GET')
    assert.equal(back('/only-post'), '/', 'a POST-only path would answer 405')
    assert.equal(back('/only-post', {}, new ValidationError({ name: ['Required.'] }, undefined, { back: '/form' })), '/form')
    assert.equal(back('/only-post', { referer: 'http://127.0.0.1/form?step=2' }), '/form?step=2')
  })

  it('a failed web form nobody keeps (no session on the route) gets the error page, not a redirect', () => {
    const { ctx, handler } = context({}, { url: '/form' })
    handler.formErrors.push(() => false)
    handler.render(ctx, new ValidationError({ name: ['Required.'] }))
    assert.equal(ctx.response.statusCode, 422)
    assert.equal(ctx.response.getHeader('location'), undefined)
  })

  it('logs the route pattern, never a secret in a path parameter', () => {
    const token = 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5'
    const { ctx, handler, lines } = context({}, { url: `/change_password/${token}`, route: '/change_password/@token' })
    handler.render(ctx, new Error('database gone'))
    assert.equal(ctx.response.statusCode, 500)
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /\/change_password\/@token/)
    assert.doesNotMatch(lines[0]!, new RegExp(token))
  })

  it('unexpected errors: 500 E_INTERNAL, logged with the stack, no detail in the answer', () => {
    const { ctx, handler, lines } = context({ accept: 'application/json' })
    handler.render(ctx, new Error('database password is hunter2'))
    assert.equal(ctx.response.statusCode, 500)
    assert.deepEqual(JSON.parse(String(ctx.response.body)), { message: 'Internal server error.', code: 'E_INTERNAL' })
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /ERROR http\.error/)
  })

  it('APP_DEBUG adds the stack to failures (5xx), not to 4xx answers', () => {
    const { ctx, handler } = context({ accept: 'application/json' }, { debug: true })
    handler.render(ctx, new Error('boom'))
    assert.match(JSON.parse(String(ctx.response.body)).stack, /Error: boom/)
    const invalid = context({ accept: 'application/json' }, { debug: true })
    invalid.handler.render(invalid.ctx, new ValidationError({ email: ['The email field is required.'] }))
    assert.deepEqual(Object.keys(JSON.parse(String(invalid.ctx.response.body))).sort(), ['code', 'errors', 'message'])
  })

  it('translators map driver errors before rendering', () => {
    const { ctx, handler } = context({ accept: 'application/json' })
    handler.translators.push((e) => (e instanceof RangeError ? new NotFoundError('mapped') : e))
    handler.render(ctx, new RangeError('x'))
    assert.equal(ctx.response.statusCode, 404)
  })
})
