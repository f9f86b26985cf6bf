import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Application } from '../../foundation/application.js'
import { Logger } from '../../support/logger.js'
import { fakeContext } from '../../testing/fake-context.js'
import { buildPageScript, loadPageScript, pageScriptBundle, pageScriptHeader, servePageScript } from './page-bundle.js'

describe('GET /auth/pages.js', () => {
  it('is one browser script: zxcvbn with the common dictionaries, then the pages\' script, with nothing that ends a script element', async () => {
    const { body } = await pageScriptBundle()
    assert.doesNotMatch(body, /\bimport\b\s*[{*]|require\(/, 'everything is bundled')
    assert.match(body, /qwerty/, 'the keyboard graphs and common passwords are in')
    assert.match(body, /data-strength/)
    assert.doesNotMatch(body, /<\/script/i)
    // The estimator runs where the browser runs it: a script in a fresh global with a document.
    const { runInNewContext } = await import('node:vm')
    const scores: number[] = []
    const input = { value: '', getAttribute: () => 'out', addEventListener: () => {} }
    const out = { hidden: true, appendChild: () => {} }
    const words = { set textContent(text: string) { scores.push(text.startsWith('Strength: Very weak') ? 0 : /Strong|Very strong/.test(text) ? 4 : 2) } }
    const document = {
      querySelectorAll: (selector: string) => (selector === 'input[data-strength]' ? [input] : []),
      getElementById: () => out,
      createElement: (tag: string) => (tag === 'span' ? words : { setAttribute: () => {} }),
    }
    input.value = 'password1'
    runInNewContext(body, { document, navigator: {}, window: {} })
    input.value = 'slide rule punch card 1943'
    runInNewContext(body, { document, navigator: {}, window: {} })
    assert.deepEqual(scores, [0, 4])
  })

  it('makes the estimator when the password field is first focused, not when the page loads', async () => {
    const { body } = await pageScriptBundle()
    const { createContext, runInContext } = await import('node:vm')
    const listeners = new Map<string, () => void>()
    const input = { value: '', getAttribute: () => 'out', addEventListener: (type: string, fn: () => void) => listeners.set(type, fn) }
    const out = { hidden: true, appendChild: () => {} }
    const texts: string[] = []
    const words = { set textContent(text: string) { texts.push(text) } }
    const document = {
      querySelectorAll: (selector: string) => (selector === 'input[data-strength]' ? [input] : []),
      getElementById: () => out,
      createElement: (tag: string) => (tag === 'span' ? words : { setAttribute: () => {} }),
    }
    const timers: Array<() => void> = []
    const page = createContext({ document, navigator: {}, window: {}, setTimeout: (fn: () => void) => timers.push(fn), ranked: false })
    // Making the estimator ranks each word list (tens of thousands of words) with forEach.
    runInContext('const each = Array.prototype.forEach; Array.prototype.forEach = function (fn, self) { if (this.length > 10000) ranked = true; return each.call(this, fn, self) }', page)
    runInContext(body, page)
    assert.deepEqual([texts, timers.length, out.hidden, page.ranked], [[], 0, true, false], 'an empty field: no hint, nothing scheduled, nothing ranked')
    listeners.get('focus')!()
    assert.equal(timers.length, 1, 'focus schedules the estimator')
    timers[0]!()
    assert.equal(page.ranked, true, 'the estimator is made')
    input.value = 'password1'
    listeners.get('input')!()
    assert.match(texts.join(), /^Strength: Very weak/)
    assert.equal(out.hidden, false)
  })

  it('answers JavaScript with an ETag, and 304 to a browser that has it', async () => {
    const app = new Application(tmpdir(), { log: new Logger({ sink: () => {} }) })
    const first = fakeContext(app, { url: '/auth/pages.js' })
    await servePageScript(first)
    assert.equal(first.response.statusCode, 200)
    assert.match(String(first.response.getHeader('content-type')), /^text\/javascript/)
    const etag = String(first.response.getHeader('etag'))
    assert.match(etag, /^"[\w-]{27}"$/)
    const again = fakeContext(app, { url: '/auth/pages.js', headers: { 'if-none-match': etag } })
    await servePageScript(again)
    assert.equal(again.response.statusCode, 304)
    assert.equal(again.response.body, null)
  })

  it('is read from the package build when that was made from the same inputs, else built', async () => {
    const built = await buildPageScript()
    // The package's dist/ (npm test builds it first) holds exactly what a build makes now.
    assert.equal(await loadPageScript(), built)
    const dir = mkdtempSync(join(tmpdir(), 'trowel-page-script-'))
    try {
      const file = join(dir, 'auth-pages.js')
      writeFileSync(file, `${pageScriptHeader()}\nprebuilt();\n`)
      assert.equal(await loadPageScript(file), 'prebuilt();\n', 'the same inputs: the file is used')
      writeFileSync(file, `/* trowel auth pages script ${'0'.repeat(64)} */\nstale();\n`)
      assert.equal(await loadPageScript(file), built, 'other inputs: built again')
      assert.equal(await loadPageScript(join(dir, 'missing.js')), built, 'no file: built')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
