import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { CookieJar } from '../http/cookie-jar.js'
import { Request } from '../http/request.js'
import { Response } from '../http/response.js'
import { HttpContext } from '../http/context.js'
import { CsrfError } from '../http/errors.js'
import type { Application } from '../foundation/application.js'
import { Session, VerifyCsrfTokenMiddleware, csrfField } from './index.js'
import { APP_KEY, FakeSessionApp, memoryApp, type FakeRequest } from './session-browser.test-kit.js'

describe('VerifyCsrfTokenMiddleware', () => {
  async function withToken() {
    const { browser } = memoryApp()
    const first = await browser.request({}, (ctx) => ctx.session.token())
    return { browser, token: first.ctx.session.currentToken() as string }
  }

  it('accepts the token in __token, _token and X-CSRF-TOKEN', async () => {
    const { browser, token } = await withToken()
    const requests: FakeRequest[] = [
      { method: 'POST', body: { __token: token } },
      { method: 'PUT', body: { _token: token } },
      { method: 'DELETE', headers: { 'X-CSRF-TOKEN': token } },
      { method: 'PATCH', body: {}, headers: { 'x-csrf-token': token } },
    ]
    for (const req of requests) {
      const res = await browser.request(req)
      assert.equal(res.error, undefined, JSON.stringify(req))
      assert.equal(res.handlerRan, true)
    }
  })

  it('throws CsrfError (419 E_CSRF) before the handler when the token is missing or wrong', async () => {
    const { browser, token } = await withToken()
    for (const req of [
      { method: 'POST', body: {} },
      { method: 'POST', body: { __token: token + 'x' } },
      { method: 'POST', body: { __token: [token] } },
      { method: 'POST', body: { __token: '' } },
      { method: 'DELETE', headers: { 'X-CSRF-TOKEN': 'nope' } },
    ]) {
      let ran = false
      const res = await browser.request(req, () => (ran = true))
      assert.ok(res.error instanceof CsrfError, JSON.stringify(req))
      assert.equal((res.error as CsrfError).status, 419)
      assert.equal((res.error as CsrfError).code, 'E_CSRF')
      assert.equal(ran, false)
    }
  })

  it('refuses a POST from a visitor with no session token at all', async () => {
    const { browser } = memoryApp()
    const res = await browser.request({ method: 'POST', body: { __token: 'anything' } })
    assert.ok(res.error instanceof CsrfError)
  })

  it('refuses the pre-regeneration token after regenerate()', async () => {
    const { browser, token } = await withToken()
    await browser.request({}, (ctx) => ctx.session.regenerate())
    const res = await browser.request({ method: 'POST', body: { __token: token } })
    assert.ok(res.error instanceof CsrfError)
  })

  it('lets GET/HEAD/OPTIONS through and honours ctx.state.csrfExempt', async () => {
    const { app, browser } = memoryApp()
    for (const method of ['GET', 'HEAD', 'OPTIONS']) assert.equal((await browser.request({ method })).error, undefined)
    const exempt = new HttpContextProbe(app)
    await exempt.check()
  })

  it('csrfField renders the hidden __token input', () => {
    const s = new Session('id')
    assert.equal(csrfField(s), `<input type="hidden" name="__token" value="${s.token()}">`)
  })
})

/** Runs the CSRF middleware alone on a POST whose context is marked exempt. */
class HttpContextProbe {
  constructor(readonly app: FakeSessionApp) {}
  async check() {
    const jar = new CookieJar(APP_KEY)
    const raw = { method: 'POST', url: '/api/auth', headers: {}, socket: {} } as unknown as IncomingMessage
    const app = this.app as unknown as Application
    const ctx = new HttpContext(app, new Request(raw, { trustProxy: 0, cookies: jar }), new Response({ cookies: jar, secure: false, urlFor: () => '/' }), null)
    ctx.session = new Session('id')
    assert.throws(() => new VerifyCsrfTokenMiddleware(app).before(ctx), CsrfError)
    ctx.state.csrfExempt = true
    assert.equal(new VerifyCsrfTokenMiddleware(app).before(ctx), undefined)
  }
}
