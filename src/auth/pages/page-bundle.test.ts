import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { Application } from '../../foundation/application.js'
import { Logger } from '../../support/logger.js'
import { fakeContext } from '../../testing/fake-context.js'
import { COMMON_IN_BROWSER, pageScriptBundle, servePageScript } from './page-bundle.js'

describe('GET /auth/pages.js', () => {
  it('is the most common passwords, lower-cased, then the pages\' script, with nothing that ends a script element', () => {
    const { body } = pageScriptBundle()
    const list = JSON.parse(/^var COMMON = new Set\((\[.*?\])\);\n/.exec(body)![1]!.replace(/<\\\//g, '</')) as string[]
    assert.equal(list.length, COMMON_IN_BROWSER)
    assert.ok(list.includes('password') && list.includes('qwerty') && list.includes('123456'))
    assert.ok(list.every((p) => p === p.toLowerCase()))
    assert.doesNotMatch(body, /<\/script/i)
    assert.match(body, /data-strength/)
  })

  it('answers JavaScript with an ETag, and 304 to a browser that has it', () => {
    const app = new Application(tmpdir(), { log: new Logger({ sink: () => {} }) })
    const first = fakeContext(app, { url: '/auth/pages.js' })
    servePageScript(first)
    assert.equal(first.response.statusCode, 200)
    assert.match(String(first.response.getHeader('content-type')), /^text\/javascript/)
    const etag = String(first.response.getHeader('etag'))
    assert.match(etag, /^"[\w-]{27}"$/)
    const again = fakeContext(app, { url: '/auth/pages.js', headers: { 'if-none-match': etag } })
    servePageScript(again)
    assert.equal(again.response.statusCode, 304)
    assert.equal(again.response.body, null)
  })
})
