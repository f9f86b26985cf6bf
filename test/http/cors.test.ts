/**
 * Black-box: CORS in a generated app (craft new + craft auth). The allow/deny and preflight
 * matrices against `config/cors.ts` with credentials on, the same app with `CORS_ORIGINS`
 * replacing the file's origins and credentials off, an app without `config/cors.ts` (answered as
 * if CORS did not exist), and the boot refusing origins that are not origins.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { newApp, installAuth, migrate, runNode, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { budgetsOff, setBudgets } from '../helpers/auth-config.js'

const SPA = 'https://spa.example.test'
const DEV = 'http://localhost:5173'
const EVIL = 'https://evil.example.test'
const EXPOSED = 'Retry-After, WWW-Authenticate, X-CSRF-TOKEN'

const BOOM = `export class BoomController {
  fail() {
    throw new Error('deliberate failure')
  }
}
`

function corsFile(origins: string[], credentials: boolean, maxAge = 600): string {
  return `export const CORS = { origins: ${JSON.stringify(origins)}, credentials: ${credentials}, max_age: ${maxAge} }\n`
}

const preflightHeaders = (origin: string, method: string, headers?: string): Record<string, string> => ({
  origin,
  'access-control-request-method': method,
  ...(headers === undefined ? {} : { 'access-control-request-headers': headers }),
})

/** Asserts the headers an allowed origin gets on any answer. */
function assertAllowed(r: { headers: Headers; status: number }, origin: string, credentials: boolean, what: string): void {
  assert.equal(r.headers.get('access-control-allow-origin'), origin, `${what}: Access-Control-Allow-Origin`)
  assert.equal(r.headers.get('access-control-allow-credentials'), credentials ? 'true' : null, `${what}: Access-Control-Allow-Credentials`)
  assert.equal(r.headers.get('access-control-expose-headers'), EXPOSED, `${what}: Access-Control-Expose-Headers`)
  assert.match(r.headers.get('vary') ?? '', /\bOrigin\b/, `${what}: Vary`)
}

function assertNotAllowed(r: { headers: Headers }, what: string): void {
  assert.equal(r.headers.get('access-control-allow-origin'), null, `${what}: no Access-Control-Allow-Origin`)
  assert.equal(r.headers.get('access-control-allow-credentials'), null, `${what}: no Access-Control-Allow-Credentials`)
  assert.equal(r.headers.get('access-control-allow-methods'), null, `${what}: no Access-Control-Allow-Methods`)
}

describe('CORS', () => {
  let app: TestApp
  /** config/cors.ts: SPA and DEV, credentials on, max_age 900. */
  let withFile: Server
  /** CORS_ORIGINS replaces the file's origins; the file then says credentials off. */
  let withEnv: Server
  /** No config/cors.ts at all. */
  let without: Server

  before(async () => {
    app = await newApp()
    installAuth(app)
    budgetsOff(app, ['login'])
    setBudgets(app, { login: { attempts: 2, minutes: 1 } })
    app.write('app/controllers/BoomController.ts', BOOM)
    app.edit('routes/web.ts', (t) => t.replace('export const ROUTES = [', "export const ROUTES = [\n  Route.get('/boom', 'BoomController@fail'),"))
    migrate(app)
    assert.match(app.read('config/cors.ts'), /export const CORS = \{ origins: \[\], credentials: false, max_age: 600 \}/)
    app.write('config/cors.ts', corsFile([SPA, `${DEV}/`], true, 900))
    withFile = await app.serve({ APP_DEBUG: 'false' })
    app.write('config/cors.ts', corsFile([SPA], false))
    withEnv = await app.serve({ APP_DEBUG: 'false', CORS_ORIGINS: ` ${EVIL.replace('evil', 'other')} ,${DEV},` })
    rmSync(join(app.dir, 'config', 'cors.ts'))
    without = await app.serve({ APP_DEBUG: 'false' })
  })
  after(() => app.cleanup())

  it('a new app generates config/cors.ts with no origins and boots without CORS headers', async () => {
    const r = await new Client(without.url).get('/login', { origin: SPA })
    assert.equal(r.status, 200)
    assertNotAllowed(r, 'no config/cors.ts')
    assert.equal(r.headers.get('vary'), null, 'no Vary without origins')
  })

  it('an allowed origin gets Allow-Origin, Allow-Credentials, Expose-Headers and Vary', async () => {
    for (const origin of [SPA, DEV]) {
      const r = await new Client(withFile.url).get('/login', { origin })
      assert.equal(r.status, 200)
      assertAllowed(r, origin, true, origin)
    }
  })

  it('a denied origin, Origin: null and no Origin get no CORS headers but Vary: Origin', async () => {
    for (const origin of [EVIL, 'null', 'https://spa.example.test.evil.example', 'http://spa.example.test', `${SPA}:8443`, undefined]) {
      const r = await new Client(withFile.url).get('/login', origin === undefined ? {} : { origin })
      assert.equal(r.status, 200)
      assertNotAllowed(r, String(origin))
      assert.match(r.headers.get('vary') ?? '', /\bOrigin\b/, `${origin}: Vary`)
    }
  })

  it('error answers to an allowed origin carry the headers: 404, 405, 401, 419, 429, 500', async () => {
    const client = new Client(withFile.url)
    const h = { origin: SPA, accept: 'application/json' }
    const notFound = await client.get('/no-such-page', h)
    assert.equal(notFound.status, 404)
    assertAllowed(notFound, SPA, true, '404')
    const wrongMethod = await client.request('PUT', '/login', { headers: h })
    assert.equal(wrongMethod.status, 405)
    assertAllowed(wrongMethod, SPA, true, '405')
    const unauthenticated = await client.get('/home', h)
    assert.equal(unauthenticated.status, 401)
    assertAllowed(unauthenticated, SPA, true, '401')
    const csrf = await client.postJson('/login', { email: 'a@example.test', password: 'wrong password' }, h)
    assert.equal(csrf.status, 419)
    assertAllowed(csrf, SPA, true, '419')
    const failed = await client.get('/boom', h)
    assert.equal(failed.status, 500)
    assertAllowed(failed, SPA, true, '500')
    // The login budget (2 a minute here): the third wrong password is a 429 with Retry-After,
    // which the SPA may read (exposed).
    const token = (await client.get('/csrf-token', h)).json().token as string
    let throttled = null
    for (let i = 0; i < 4 && throttled === null; i++) {
      const r = await client.postJson('/login', { email: 'nobody@example.test', password: 'wrong password' }, { ...h, 'x-csrf-token': token })
      if (r.status === 429) throttled = r
      else assert.equal(r.status, 401, r.text)
    }
    assert.ok(throttled, 'the budget ran out')
    assertAllowed(throttled, SPA, true, '429')
    assert.ok(Number(throttled.headers.get('retry-after')) > 0)
  })

  it('a preflight from an allowed origin: 204 with the route methods, the headers and max_age', async () => {
    const client = new Client(withFile.url)
    const r = await client.request('OPTIONS', '/login', { headers: preflightHeaders(SPA, 'POST', 'content-type, x-csrf-token') })
    assert.equal(r.status, 204, r.text)
    assertAllowed(r, SPA, true, 'preflight')
    assert.equal(r.headers.get('access-control-allow-methods'), 'GET, HEAD, POST')
    assert.equal(r.headers.get('access-control-allow-headers'), 'Authorization, Content-Type, X-CSRF-TOKEN, X-Organization')
    assert.equal(r.headers.get('access-control-max-age'), '900')
    assert.equal(r.text, '')
    // It runs before sessions: no cookie is set.
    assert.deepEqual(r.setCookies, [])
    // Every allowed header, in any case; no header at all.
    const all = await client.request('OPTIONS', '/login', { headers: preflightHeaders(DEV, 'post', 'Authorization,Content-Type,X-CSRF-Token,X-Organization') })
    assert.equal(all.status, 204)
    assert.equal(all.headers.get('access-control-allow-origin'), DEV)
    const none = await client.request('OPTIONS', '/home', { headers: preflightHeaders(SPA, 'GET') })
    assert.equal(none.status, 204)
    assert.equal(none.headers.get('access-control-allow-methods'), 'GET, HEAD')
  })

  it('a preflight is refused (403): denied origin, Origin: null, a method the path lacks, an unknown path, an extra header', async () => {
    const client = new Client(withFile.url)
    const cases: [string, string, Record<string, string>][] = [
      ['denied origin', '/login', preflightHeaders(EVIL, 'POST', 'content-type')],
      ['Origin: null', '/login', preflightHeaders('null', 'POST')],
      ['no Origin', '/login', { 'access-control-request-method': 'POST' }],
      ['a method the route lacks', '/login', preflightHeaders(SPA, 'DELETE')],
      ['an unknown method', '/login', preflightHeaders(SPA, 'PROPFIND')],
      ['an unknown path', '/no-such-page', preflightHeaders(SPA, 'GET')],
      ['a header not allowed', '/login', preflightHeaders(SPA, 'POST', 'content-type, x-requested-with')],
    ]
    for (const [what, path, headers] of cases) {
      const r = await client.request('OPTIONS', path, { headers })
      assert.equal(r.status, 403, what)
      assert.equal(r.json().code, 'E_FORBIDDEN', what)
      assert.equal(r.headers.get('access-control-allow-methods'), null, what)
      assert.equal(r.headers.get('access-control-max-age'), null, what)
      assert.deepEqual(r.setCookies, [], `${what}: no session started`)
    }
  })

  it('an OPTIONS without Access-Control-Request-Method is not a preflight: routed as before', async () => {
    const r = await new Client(withFile.url).request('OPTIONS', '/login', { headers: { origin: SPA, accept: 'application/json' } })
    assert.equal(r.status, 405)
    assertAllowed(r, SPA, true, 'plain OPTIONS')
  })

  it('CORS_ORIGINS replaces the origins of config/cors.ts; credentials off sends no Allow-Credentials', async () => {
    const client = new Client(withEnv.url)
    const other = EVIL.replace('evil', 'other')
    for (const origin of [other, DEV]) {
      const r = await client.get('/login', { origin })
      assertAllowed(r, origin, false, `CORS_ORIGINS ${origin}`)
      const pre = await client.request('OPTIONS', '/login', { headers: preflightHeaders(origin, 'POST', 'content-type') })
      assert.equal(pre.status, 204)
      assert.equal(pre.headers.get('access-control-allow-credentials'), null)
      assert.equal(pre.headers.get('access-control-max-age'), '600')
    }
    const replaced = await client.get('/login', { origin: SPA })
    assertNotAllowed(replaced, 'the file origin, replaced by CORS_ORIGINS')
    assert.equal((await client.request('OPTIONS', '/login', { headers: preflightHeaders(SPA, 'POST') })).status, 403)
  })

  it('an app without config/cors.ts answers a preflight as it always did (405) with no CORS header', async () => {
    const r = await new Client(without.url).request('OPTIONS', '/login', { headers: { ...preflightHeaders(SPA, 'POST'), accept: 'application/json' } })
    assert.equal(r.status, 405)
    assertNotAllowed(r, 'no config')
    assert.equal(r.headers.get('vary'), null)
  })

  it('an attacker page cannot read /csrf-token: its origin gets no Allow-Origin', async () => {
    const r = await new Client(withFile.url).get('/csrf-token', { origin: EVIL })
    assert.equal(r.status, 200)
    assertNotAllowed(r, 'evil origin reading the token')
  })

  describe('the boot refuses what is not an origin', () => {
    const refusals: [string, Record<string, string>, string | null, RegExp][] = [
      ['a wildcard in CORS_ORIGINS', { CORS_ORIGINS: '*' }, null, /CORS_ORIGINS has "\*", which is not an origin/],
      ['null in CORS_ORIGINS', { CORS_ORIGINS: `${SPA},null` }, null, /CORS_ORIGINS has "null", which is not an origin/],
      ['a subdomain wildcard in CORS_ORIGINS', { CORS_ORIGINS: 'https://*.example.test' }, null, /CORS_ORIGINS/],
      ['a wildcard in config/cors.ts', {}, corsFile(['*'], true), /config\/cors\.ts: CORS\.origins has "\*", which is not an origin/],
      ['null in config/cors.ts', {}, corsFile(['null'], false), /config\/cors\.ts: CORS\.origins has "null"/],
      ['a path in config/cors.ts', {}, corsFile([`${SPA}/app`], false), /config\/cors\.ts: CORS\.origins has "https:\/\/spa\.example\.test\/app"/],
      ['a bare host in config/cors.ts', {}, corsFile(['spa.example.test'], false), /config\/cors\.ts/],
    ]
    for (const [what, env, file, message] of refusals) {
      it(what, () => {
        app.write('config/cors.ts', file ?? corsFile([], false))
        try {
          const r = runNode(['craft', 'serve', '--port', '0'], { cwd: app.dir, env: { ...app.env, ...env } })
          assert.notEqual(r.code, 0, `${what}: the app must not start\n${r.stdout}`)
          assert.match(r.stderr, message)
        } finally {
          app.write('config/cors.ts', corsFile([], false))
        }
      })
    }
  })
})
