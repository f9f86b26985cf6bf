import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CookieJar } from '../http/cookie-jar.js'
import type { Application } from '../foundation/application.js'
import { Session, resolveSessionConfig } from './index.js'
import { FakeSessionApp, SessionBrowser, memoryApp } from './session-browser.test-kit.js'

describe('SessionMiddleware', () => {
  it('starts no session (no cookie) for a visitor who stores nothing', async () => {
    const { store, browser } = memoryApp()
    const res = await browser.request({})
    assert.deepEqual(res.setCookies, [])
    assert.equal(store.size, 0)
  })

  it('keeps values across requests with a signed, HttpOnly, SameSite=Lax cookie', async () => {
    const { browser } = memoryApp()
    const first = await browser.request({}, (ctx) => ctx.session.put('n', 41))
    const header = first.setCookies[0]!
    assert.match(header, /^trowel_session=s\./)
    assert.match(header, /HttpOnly/i)
    assert.match(header, /SameSite=Lax/i)
    assert.doesNotMatch(header, /Secure/i)
    const second = await browser.request({}, (ctx) => ctx.session.get('n'))
    assert.equal(second.ctx.session.get('n'), 41)
    assert.equal(second.ctx.session.id, first.ctx.session.id)
  })

  it('marks the cookie Secure over HTTPS', async () => {
    const { browser } = memoryApp()
    const res = await browser.request({ secure: true }, (ctx) => ctx.session.put('a', 1))
    assert.match(res.setCookies[0]!, /;\s*Secure/i)
  })

  it('ignores a tampered cookie: fresh session with a new id', async () => {
    const { browser } = memoryApp()
    const first = await browser.request({}, (ctx) => ctx.session.put('user', 1))
    const good = browser.cookies.get('trowel_session')!
    browser.cookies.set('trowel_session', good.slice(0, -2) + (good.endsWith('AA') ? 'BB' : 'AA'))
    const second = await browser.request({}, (ctx) => ctx.session.put('x', 1))
    assert.equal(second.ctx.session.get('user'), undefined)
    assert.notEqual(second.ctx.session.id, first.ctx.session.id)
  })

  it('never adopts a client-chosen id, even when correctly signed but unknown to the store', async () => {
    const { browser } = memoryApp()
    const chosen = 'A'.repeat(43)
    browser.cookies.set('trowel_session', browser.jar.pack('trowel_session', chosen))
    const res = await browser.request({}, (ctx) => ctx.session.put('x', 1))
    assert.notEqual(res.ctx.session.id, chosen)
  })

  it('ignores a session cookie signed for another cookie name or another key', async () => {
    const { browser } = memoryApp()
    const first = await browser.request({}, (ctx) => ctx.session.put('user', 1))
    const id = first.ctx.session.id
    for (const forged of [browser.jar.pack('other_cookie', id), new CookieJar('another-key-entirely-0123456789ab').pack('trowel_session', id), id]) {
      browser.cookies.set('trowel_session', forged)
      const res = await browser.request({}, (ctx) => ctx.session.get('user'))
      assert.equal(res.ctx.session.get('user'), undefined)
      assert.notEqual(res.ctx.session.id, id)
    }
  })

  it('regenerate() changes the id and CSRF token, keeps data, and destroys the old id in the store', async () => {
    const { store, browser } = memoryApp()
    const first = await browser.request({}, (ctx) => {
      ctx.session.put('cart', [1])
      ctx.session.token()
    })
    const oldId = first.ctx.session.id
    const oldToken = first.ctx.session.currentToken()
    assert.ok(await store.read(oldId))
    const second = await browser.request({}, (ctx) => ctx.session.regenerate())
    const s = second.ctx.session as Session
    assert.notEqual(s.id, oldId)
    assert.notEqual(s.currentToken(), oldToken)
    assert.deepEqual(s.get('cart'), [1])
    assert.equal(await store.read(oldId), null)
    assert.ok(await store.read(s.id))
    // The client now holds the new id.
    const third = await browser.request({}, (ctx) => ctx.session.get('cart'))
    assert.equal(third.ctx.session.id, s.id)
  })

  it('invalidate() clears data, moves to a new id and destroys the old one', async () => {
    const { store, browser } = memoryApp()
    const first = await browser.request({}, (ctx) => ctx.session.put('user', 7))
    const second = await browser.request({}, (ctx) => ctx.session.invalidate())
    assert.notEqual(second.ctx.session.id, first.ctx.session.id)
    assert.equal(await store.read(first.ctx.session.id), null)
    const third = await browser.request({}, (ctx) => ctx.session.get('user'))
    assert.equal(third.ctx.session.get('user'), undefined)
  })

  it('flash data lives for exactly the next request', async () => {
    const { browser } = memoryApp()
    await browser.request({}, (ctx) => {
      ctx.session.flash('success', 'Saved.')
      assert.equal(ctx.session.getFlash('success'), undefined, 'not readable in the same request')
    })
    const next = await browser.request({})
    assert.equal(next.ctx.session.getFlash('success'), 'Saved.')
    const after = await browser.request({})
    assert.equal(after.ctx.session.getFlash('success'), undefined)
  })

  it('a HEAD request does not use up flash data', async () => {
    const { browser } = memoryApp()
    await browser.request({}, (ctx) => ctx.session.flash('status', 'Saved.'))
    await browser.request({ method: 'HEAD' })
    await browser.request({ method: 'HEAD' })
    const page = await browser.request({})
    assert.equal(page.ctx.session.getFlash('status'), 'Saved.')
    assert.equal((await browser.request({})).ctx.session.getFlash('status'), undefined, 'the page used it up')
  })

  it('reflash() keeps flash data one more request', async () => {
    const { browser } = memoryApp()
    await browser.request({}, (ctx) => ctx.session.flash('status', 'hi'))
    await browser.request({}, (ctx) => ctx.session.reflash())
    const third = await browser.request({})
    assert.equal(third.ctx.session.getFlash('status'), 'hi')
    const fourth = await browser.request({})
    assert.equal(fourth.ctx.session.getFlash('status'), undefined)
  })

  it('old input and errors reach the next request without passwords', async () => {
    const { browser } = memoryApp()
    await browser.request({}, (ctx) => {
      ctx.session.flashInput({ email: 'a@b.co', password: 'secret-pass', password_confirmation: 'secret-pass' })
      ctx.session.flashErrors({ email: ['The email has already been taken.'] })
    })
    const next = await browser.request({})
    assert.equal(next.ctx.session.old('email'), 'a@b.co')
    assert.equal(next.ctx.session.old('password', null), null)
    assert.equal(next.ctx.session.old('password_confirmation', null), null)
    assert.deepEqual(next.ctx.session.errors(), { email: ['The email has already been taken.'] })
    const third = await browser.request({})
    assert.deepEqual(third.ctx.session.errors(), {})
  })

  it('expires an idle session (lifetime) and an old one (absolute_lifetime) with a fresh id', async () => {
    for (const data of [
      { createdAt: Date.now() - 10 * 60_000, lastActivity: Date.now() - 3 * 60_000 },
      { createdAt: Date.now() - 30 * 60_000, lastActivity: Date.now() - 1_000 },
    ]) {
      const { store, browser } = memoryApp({ lifetime: 2, absolute_lifetime: 20 })
      const id = 'B'.repeat(43)
      await store.write(id, { values: { user: 1 }, flash: {}, csrfToken: null, ...data }, 3600)
      browser.cookies.set('trowel_session', browser.jar.pack('trowel_session', id))
      const res = await browser.request({}, (ctx) => ctx.session.get('user'))
      assert.equal(res.ctx.session.get('user'), undefined)
      assert.notEqual(res.ctx.session.id, id)
      assert.equal(await store.read(id), null)
    }
  })

  it('the cookie driver keeps the whole session in one encrypted cookie', async () => {
    const app = new FakeSessionApp({ driver: 'cookie' })
    const browser = new SessionBrowser(app)
    const first = await browser.request({}, (ctx) => ctx.session.put('secret', 'value-1'))
    const cookie = browser.cookies.get('trowel_session')!
    assert.match(cookie, /^e\./)
    assert.doesNotMatch(Buffer.from(cookie.slice(2), 'base64url').toString('latin1'), /value-1/)
    const second = await browser.request({}, (ctx) => ctx.session.get('secret'))
    assert.equal(second.ctx.session.get('secret'), 'value-1')
    assert.equal(second.ctx.session.id, first.ctx.session.id)
    // Tampering with the ciphertext gives a fresh session.
    browser.cookies.set('trowel_session', cookie.slice(0, 10) + (cookie[10] === 'A' ? 'B' : 'A') + cookie.slice(11))
    const third = await browser.request({}, (ctx) => ctx.session.put('x', 1))
    assert.equal(third.ctx.session.get('secret'), undefined)
    assert.notEqual(third.ctx.session.id, first.ctx.session.id)
  })

  it('the cookie driver refuses a session over 4 KB, dropping old input first', async () => {
    const app = new FakeSessionApp({ driver: 'cookie' })
    const browser = new SessionBrowser(app)
    const res = await browser.request({}, (ctx) => {
      ctx.session.put('ok', 1)
      ctx.session.flashInput({ bio: 'x'.repeat(5000) })
    })
    assert.equal(res.error, undefined)
    assert.ok(app.logs.some((l) => l.event === 'session.old_input_dropped'))
    const res2 = await browser.request({}, (ctx) => ctx.session.put('big', 'y'.repeat(5000)))
    assert.equal((res2.error as { code?: string }).code, 'E_SESSION_TOO_LARGE')
  })

  it('rejects an unknown driver with a message naming config/session.ts', () => {
    assert.throws(() => resolveSessionConfig(new FakeSessionApp({ driver: 'files' }) as unknown as Application), /config\/session\.ts: SESSION\.driver/)
  })
})

describe('SessionMiddleware: the X-CSRF-TOKEN response header', () => {
  it('announces a token made, rotated or replaced after invalidate; never an unchanged one', async () => {
    const { browser } = memoryApp()
    const made = await browser.request({}, (ctx) => ctx.session.token())
    const first = made.response.getHeader('x-csrf-token')
    assert.equal(first, made.ctx.session.currentToken(), 'the first token of a session')
    const unchanged = await browser.request({}, (ctx) => ctx.session.token())
    assert.equal(unchanged.response.getHeader('x-csrf-token'), undefined)
    const rotated = await browser.request({ method: 'POST', headers: { 'X-CSRF-TOKEN': String(first) } }, (ctx) => ctx.session.regenerate())
    const second = rotated.response.getHeader('x-csrf-token')
    assert.ok(second && second !== first, 'a login-like regenerate announces the new token')
    const loggedOut = await browser.request({ method: 'POST', headers: { 'X-CSRF-TOKEN': String(second) } }, (ctx) => ctx.session.invalidate())
    const third = loggedOut.response.getHeader('x-csrf-token')
    assert.ok(third && third !== second, 'a logout-like invalidate gets a fresh token, announced')
    const next = await browser.request({ method: 'POST', headers: { 'X-CSRF-TOKEN': String(third) } }, () => 'ok')
    assert.equal(next.error, undefined, 'the announced token is the session\'s')
  })

  it('sends nothing for a visitor whose request made no token', async () => {
    const { browser } = memoryApp()
    const res = await browser.request({}, (ctx) => ctx.session.put('a', 1))
    assert.equal(res.response.getHeader('x-csrf-token'), undefined)
  })
})
