import { test } from 'node:test'
import assert from 'node:assert/strict'
import { TestResponse } from './test-response.js'
import { CookieStore } from './cookie-store.js'
import { inject } from './inject.js'

function response(status: number, text = '', headers: Record<string, string | string[]> = {}) {
  return new TestResponse({ status, headers, text, method: 'GET', path: '/x' })
}

test('assertOk, assertStatus and assertUnauthorized check the status and say what came back', () => {
  response(200).assertOk()
  response(401).assertUnauthorized()
  assert.throws(() => response(500, 'boom').assertOk(), /Expected status 200 from GET \/x, got 500:\nboom/)
})

test('assertRedirect compares the path (an absolute Location counts by its path)', () => {
  response(302, '', { location: '/home' }).assertRedirect('/home').assertRedirect()
  response(302, '', { location: 'http://127.0.0.1:8000/login?next=%2Fx' }).assertRedirect('/login')
  assert.throws(() => response(302, '', { location: '/login' }).assertRedirect('/home'), /a redirect to \/home.*→ \/login/)
  assert.throws(() => response(200).assertRedirect(), /Expected a redirect/)
})

test('assertJson matches a partial object recursively', () => {
  const r = response(200, JSON.stringify({ data: { id: 1, email: 'a@b.c', roles: ['x'] }, meta: 1 }))
  r.assertJson({ data: { email: 'a@b.c' } }).assertJson({ data: { roles: ['x'] } })
  assert.throws(() => r.assertJson({ data: { email: 'other' } }), /\$\.data\.email is "a@b\.c"/)
  assert.throws(() => r.assertJson({ missing: true }), /\$\.missing is missing/)
  assert.throws(() => response(200, '<html>').assertJson({}), /a JSON body/)
})

test('assertSee, assertDontSee and assertHeader', () => {
  const r = response(200, 'Hello, Ada', { 'content-type': 'text/html; charset=utf-8' })
  r.assertSee('Ada').assertDontSee('Grace').assertHeader('content-type').assertHeader('Content-Type', 'text/html; charset=utf-8')
  assert.throws(() => r.assertHeader('x-missing'), /header x-missing/)
})

test('the cookie store keeps set cookies and drops expired ones', () => {
  const jar = new CookieStore()
  jar.apply(['a=1; Path=/; HttpOnly', 'b=2; Max-Age=60'])
  assert.equal(jar.header(), 'a=1; b=2')
  jar.apply(['a=; Max-Age=0', 'b=3; Expires=Thu, 01 Jan 1970 00:00:00 GMT'])
  assert.equal(jar.header(), undefined)
})

test('inject sends method, url, headers and body to a listener and records the answer', async () => {
  const answer = await inject(
    (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'text/plain', 'set-cookie': ['k=v'] })
        res.end(`${req.method} ${req.url} ${req.headers['x-test']} ${req.headers['content-length']} ${req.socket.remoteAddress} ${Buffer.concat(chunks).toString()}`)
      })
    },
    { method: 'post', url: '/p?q=1', headers: { 'X-Test': 'yes' }, body: 'hello' },
  )
  assert.equal(answer.statusCode, 201)
  assert.deepEqual(answer.headers['set-cookie'], ['k=v'])
  assert.equal(answer.body.toString(), 'POST /p?q=1 yes 5 127.0.0.1 hello')
})
