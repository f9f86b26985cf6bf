import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CookieSessionStore } from './index.js'

describe('CookieSessionStore', () => {
  it('cannot be used without a request', async () => {
    await assert.rejects(new CookieSessionStore().read(), /bind/)
  })
})
