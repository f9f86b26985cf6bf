/**
 * Black-box: with APP_DEBUG=true (a new app's default) a browser request that ends in an
 * unexpected error gets the debug page: the message, the source around the failing line, the
 * stack with the app's frame first, and the request with every secret masked. JSON requests keep
 * JSON (with the stack); 4xx answers keep their normal pages; with APP_DEBUG=false the same error
 * is the plain 500 page with no message, stack, source or path.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'

let app: TestApp
let debug: Server
let quiet: Server

const CONTROLLER = `import type { HttpContext } from 'trowel'

export class BoomController {
  remember({ session, request }: HttpContext) {
    session.put('cart', ['tea'])
    session.put('api_token', request.input('value'))
    return 'ok'
  }

  fail({ request }: HttpContext) {
    const items = request.input('items') as string[] | undefined
    if (!items) throw new TypeError('deliberate failure <with markup>')
    return items
  }
}
`

// Values that must never reach the page.
const SECRETS = ['BEARERSECRET', 'COOKIESECRET', 'QUERYPASSWORD', 'QUERYTOKEN', 'HEADERKEY', 'SESSIONSECRET']

before(async () => {
  app = await newApp()
  assert.equal(app.craft('migrate').code, 0)
  app.write('app/controllers/BoomController.ts', CONTROLLER)
  app.edit('routes/web.ts', (t) =>
    t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/remember', 'BoomController@remember'),\n  Route.get('/fail', 'BoomController@fail'),"),
  )
  // No APP_DEBUG given: the generated .env's APP_DEBUG=true is what serves.
  assert.match(app.read('.env'), /^APP_DEBUG=true$/m)
  debug = await app.serve()
  quiet = await app.serve({ APP_DEBUG: 'false' })
})

after(() => app.cleanup())

test('debug: a browser gets the message, the source excerpt and the app frame first', async () => {
  const r = await new Client(debug.url).get('/fail', { accept: 'text/html' })
  assert.equal(r.status, 500)
  assert.match(r.headers.get('content-type') ?? '', /text\/html/)
  assert.ok(r.text.includes('deliberate failure &lt;with markup&gt;'), 'the message, escaped')
  assert.doesNotMatch(r.text, /deliberate failure <with/, 'never unescaped')
  assert.match(r.text, /TypeError/)
  assert.match(r.text, /500 Internal Server Error/)
  // The source around the failing line (youch highlights it, so compare words, not markup).
  const source = r.text.replace(/<[^>]+>/g, '')
  assert.match(source, /if \(!items\) throw new TypeError/, 'the failing line')
  assert.match(source, /request\.input\(&#39;items&#39;\)|request\.input\('items'\)/, 'a line above it')
  // The app's frame is named by its path in the app and comes before the framework's frames.
  const appFrame = r.text.indexOf('app/controllers/BoomController.ts')
  assert.ok(appFrame > 0, 'the app frame is shown')
  assert.match(r.text, /In App/)
  const frameworkFrame = r.text.search(/foundation\/route-resolver\.js/)
  assert.ok(frameworkFrame === -1 || appFrame < frameworkFrame, 'the app frame first')
})

test('debug: the request details are shown with secrets masked', async () => {
  const client = new Client(debug.url)
  assert.equal((await client.get('/remember?value=SESSIONSECRET')).status, 200)
  client.cookies.set('theme', 'COOKIESECRET')
  const r = await client.get('/fail?password=QUERYPASSWORD&reset_token=QUERYTOKEN&q=visible-value', {
    accept: 'text/html',
    authorization: 'Bearer BEARERSECRET',
    'x-api-key': 'HEADERKEY',
    'x-visible': 'visible-header',
  })
  assert.equal(r.status, 500)
  for (const secret of SECRETS) assert.ok(!r.text.includes(secret), `${secret} is not on the page`)
  assert.match(r.text, /\[masked\]/)
  assert.match(r.text, /GET/)
  assert.match(r.text, /\/fail\?/)
  assert.match(r.text, /visible-value/, 'an ordinary query value is shown')
  assert.match(r.text, /visible-header/, 'an ordinary header is shown')
  assert.match(r.text, /user-agent|accept/)
  assert.match(r.text, /trowel_session/, 'cookie names are listed')
  assert.match(r.text, /theme/)
  assert.match(r.text, /cart/, 'session keys are listed')
  assert.match(r.text, /api_token/)
})

test('debug: a client-controlled header name cannot inject markup', async () => {
  const r = await new Client(debug.url).get('/fail?%3Cimg%20src%3Dx%3E=1', { accept: 'text/html' })
  assert.equal(r.status, 500)
  assert.doesNotMatch(r.text, /<img src=x>/)
})

test('debug: JSON requests get JSON with the message code and stack', async () => {
  const r = await new Client(debug.url).get('/fail', { accept: 'application/json' })
  assert.equal(r.status, 500)
  const body = r.json() as { message: string; code: string; stack: string }
  assert.equal(body.code, 'E_INTERNAL')
  assert.equal(typeof body.message, 'string')
  assert.match(body.stack, /TypeError: deliberate failure/)
  assert.match(body.stack, /app\/controllers\/BoomController\.ts:\d+:\d+/)
})

test('debug: HTTP errors (404) keep their normal page', async () => {
  const r = await new Client(debug.url).get('/no-such-page', { accept: 'text/html' })
  assert.equal(r.status, 404)
  assert.match(r.text, /E_NOT_FOUND/)
  assert.doesNotMatch(r.text, /Stack Trace|In App|youch/i)
})

test('APP_DEBUG=false: the same error is the plain 500 page, no message, stack, source or path', async () => {
  const r = await new Client(quiet.url).get('/fail?password=QUERYPASSWORD', { accept: 'text/html', authorization: 'Bearer BEARERSECRET' })
  assert.equal(r.status, 500)
  // The error page says what happened once: the reason phrase, then a sentence (not the reason again).
  assert.match(r.text, /<h1>Internal Server Error<\/h1>/)
  assert.match(r.text, /Something went wrong on our side/)
  assert.match(r.text, /E_INTERNAL/)
  for (const leak of ['deliberate failure', 'BoomController', 'TypeError', 'throw new', app.dir, 'node_modules', 'Stack Trace', 'QUERYPASSWORD', 'BEARERSECRET']) {
    assert.ok(!r.text.includes(leak), `${leak} is not on the page`)
  }
  assert.doesNotMatch(r.text, /at .*\.[jt]s:\d+/)
  const json = await new Client(quiet.url).get('/fail', { accept: 'application/json' })
  assert.deepEqual(json.json(), { message: 'Internal server error.', code: 'E_INTERNAL' })
})
