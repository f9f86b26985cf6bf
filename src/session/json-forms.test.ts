import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { HttpContext } from '../http/context.js'
import { CookieJar } from '../http/cookie-jar.js'
import { Response } from '../http/response.js'
import { acceptsJsonFirst } from '../http/request.js'
import { answerData, answerJsonError, answerJsonForm, VIEW_DATA } from './json-forms.js'
import { viewJsonData } from '../view/view-json-data.js'
import { markup } from '../view/lazy-markup.js'

describe('acceptsJsonFirst', () => {
  it('is true when JSON is preferred to HTML, false otherwise', () => {
    for (const accept of ['application/json', 'application/json, text/plain, */*', 'application/json, text/html;q=0.9', 'application/problem+json', 'text/html;q=0.5, application/json'])
      assert.equal(acceptsJsonFirst(accept), true, accept)
    for (const accept of [undefined, '', '*/*', 'text/html', 'text/html, application/json', 'application/json;q=0', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json;q=0.5, application/xhtml+xml'])
      assert.equal(acceptsJsonFirst(accept), false, String(accept))
  })
})

/** A JSON request's context on a web route, with a session holding `flashed`. */
function context(form: 'form' | 'create' | 'navigation' | undefined, flashed: Record<string, unknown> = {}, wantsJson = true, method = 'POST') {
  let outgoing = { ...flashed }
  const ctx = {
    route: { path: '/x', methods: ['POST'], json: false, ...(form ? { form } : {}) },
    hasSession: true,
    session: {
      takeFlashed(keys: string[]) {
        const taken = Object.fromEntries(Object.entries(outgoing).filter(([k]) => keys.includes(k)))
        outgoing = Object.fromEntries(Object.entries(outgoing).filter(([k]) => !keys.includes(k)))
        return taken
      },
    },
    request: { wantsJson: () => wantsJson, method },
    response: new Response({ cookies: new CookieJar('k'.repeat(40)), secure: false, urlFor: () => '' }),
    state: {} as Record<string, unknown>,
  }
  return { ctx: ctx as unknown as HttpContext, left: () => outgoing }
}

const body = (ctx: HttpContext) => JSON.parse(String(ctx.response.body))

describe('answerJsonForm', () => {
  it('turns a redirect into 200 {data: {redirect, message}} and takes the flash back', () => {
    const { ctx, left } = context(undefined, { success: 'Saved.', summary: { kept: true } })
    ctx.response.redirect('/home')
    answerJsonForm(ctx)
    assert.equal(ctx.response.statusCode, 200)
    assert.equal(ctx.response.getHeader('location'), undefined)
    assert.deepEqual(body(ctx), { data: { message: 'Saved.', redirect: '/home' } })
    assert.deepEqual(left(), { summary: { kept: true } }, 'what the next page shows stays flashed')
  })

  it('a login sent to its second step is 401 E_MFA_REQUIRED, by redirect or by value', () => {
    const held = { message: 'A second factor is required to finish this login.', code: 'E_MFA_REQUIRED' }
    const redirected = context('form', { success: 'Your address is verified.' })
    answerJsonError(redirected.ctx, 401, held)
    redirected.ctx.response.redirect('/second-step')
    answerJsonForm(redirected.ctx)
    assert.equal(redirected.ctx.response.statusCode, 401)
    assert.deepEqual(body(redirected.ctx), held)
    const returned = context('form')
    answerJsonError(returned.ctx, 401, held)
    returned.ctx.response.json({ redirect: '/second-step' })
    answerJsonForm(returned.ctx)
    assert.equal(returned.ctx.response.statusCode, 401)
    assert.deepEqual(body(returned.ctx), held)
    // The same page without a login held back is an ordinary redirect.
    const plain = context('form')
    plain.ctx.response.redirect('/second-step')
    answerJsonForm(plain.ctx)
    assert.equal(plain.ctx.response.statusCode, 200)
    assert.deepEqual(body(plain.ctx), { data: { redirect: '/second-step' } })
  })

  it('answers 201 on a create, with the data a form added', () => {
    const { ctx } = context('create')
    answerData(ctx, { id: 7, slug: 'acme' })
    ctx.response.redirect('/organizations/acme')
    answerJsonForm(ctx)
    assert.equal(ctx.response.statusCode, 201)
    assert.deepEqual(body(ctx), { data: { id: 7, slug: 'acme', redirect: '/organizations/acme' } })
  })

  it('flashed field errors are 422 E_VALIDATION; a flashed error message is 409 E_CONFLICT', () => {
    const invalid = context('form', { _errors: { code: ['The code is invalid or has expired.'] }, _old_input: { email: 'a@b.c' } })
    invalid.ctx.response.redirect('/login/email/sent')
    answerJsonForm(invalid.ctx)
    assert.equal(invalid.ctx.response.statusCode, 422)
    assert.deepEqual(body(invalid.ctx), { message: 'The given data was invalid.', code: 'E_VALIDATION', errors: { code: ['The code is invalid or has expired.'] } })
    assert.deepEqual(invalid.left(), {})
    const refused = context('form', { error: 'It would leave no way in.' })
    refused.ctx.response.redirect('/account/connections')
    answerJsonForm(refused.ctx)
    assert.equal(refused.ctx.response.statusCode, 409)
    assert.deepEqual(body(refused.ctx), { message: 'It would leave no way in.', code: 'E_CONFLICT' })
  })

  it('wraps what a form route returns in {data}; an answer with data keeps it', () => {
    const plain = context('form')
    plain.ctx.response.json({ message: 'Done.', count: 2 })
    answerJsonForm(plain.ctx)
    assert.deepEqual(body(plain.ctx), { data: { message: 'Done.', count: 2 } })
    const list = context('form')
    list.ctx.response.json({ data: [1, 2] })
    answerJsonForm(list.ctx)
    assert.deepEqual(body(list.ctx), { data: [1, 2] })
    const mixed = context('form')
    mixed.ctx.response.json({ data: { revoked: 3 }, message: 'Revoked.' })
    answerJsonForm(mixed.ctx)
    assert.deepEqual(body(mixed.ctx), { data: { message: 'Revoked.', revoked: 3 } })
  })

  it('answers a rendered view as its data; leaves errors, navigations, HTML requests and plain routes alone', () => {
    const page = context('form', {}, true, 'GET')
    page.ctx.state[VIEW_DATA] = { next: null }
    page.ctx.response.html('')
    answerJsonForm(page.ctx)
    assert.deepEqual(body(page.ctx), { data: { next: null } })
    assert.equal(page.ctx.response.getHeader('vary'), 'Accept', 'caches keep the page and its JSON apart')
    const dead = context('form')
    dead.ctx.state[VIEW_DATA] = { message: 'This link cannot be used.' }
    dead.ctx.response.html('', 404)
    answerJsonForm(dead.ctx)
    assert.equal(dead.ctx.response.statusCode, 404)
    assert.deepEqual(body(dead.ctx), { message: 'This link cannot be used.', code: 'E_NOT_FOUND' })

    const error = context('form')
    error.ctx.response.json({ message: 'Nope.', code: 'E_FORBIDDEN' }, 403)
    answerJsonForm(error.ctx)
    assert.deepEqual(body(error.ctx), { message: 'Nope.', code: 'E_FORBIDDEN' })

    for (const [form, json] of [['navigation', true], ['form', false]] as const) {
      const { ctx } = context(form, {}, json)
      ctx.response.redirect('/somewhere')
      answerJsonForm(ctx)
      assert.equal(ctx.response.statusCode, 302, `${form} ${json}`)
    }
    const own = context(undefined)
    own.ctx.response.json({ token: 'x' })
    answerJsonForm(own.ctx)
    assert.deepEqual(body(own.ctx), { token: 'x' }, 'a route that is not a form keeps its own JSON')
  })
})

describe('viewJsonData', () => {
  it('keeps the page data, never its furniture, markup, functions or secrets', () => {
    const user = { id: 1, name: 'Ada', toJSON: () => ({ id: 1, name: 'Ada', totp_secret: 'enc', nested: { remember_token: 'r', ok: true } }) }
    const data = viewJsonData({ user, next: '/x', csrf_field: markup('<input>'), qr: markup('<svg/>'), messages: {}, old: () => '', new_token: 'secret', _private: 1 })
    assert.deepEqual(data, { user: { id: 1, name: 'Ada', nested: { ok: true } }, next: '/x' })
    assert.deepEqual(viewJsonData({ a: 1, b: 2 }, ['b']), { b: 2 })
    assert.deepEqual(viewJsonData({ a: 1 }, (d) => ({ n: d.a })), { n: 1 })
  })
})
