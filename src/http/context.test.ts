import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { HttpContext } from './context.js'
import { FrameworkError } from '../support/framework-error.js'
import '../session/context-session.js'
import '../view/context-view.js'
import '../auth/auth.js'

declare module './context.js' {
  interface HttpContext {
    decoratedForTest?: string
    needsMissing?: string
  }
}

describe('HttpContext.decorate', () => {
  it('has the properties the session, view and auth modules add', () => {
    for (const name of ['session', 'hasSession', 'view', 'auth']) assert.ok(HttpContext.isDecorated(name), name)
  })

  it('adds a property to every context, once', () => {
    HttpContext.decorate('decoratedForTest', {
      get() {
        return `at ${this.receivedAt}`
      },
    })
    const ctx = Object.create(HttpContext.prototype) as HttpContext
    Object.defineProperty(ctx, 'receivedAt', { value: 7 })
    assert.equal(ctx.decoratedForTest, 'at 7')
    assert.throws(
      () => HttpContext.decorate('decoratedForTest', { get: () => 'again' }),
      (error: unknown) => error instanceof FrameworkError && error.code === 'E_CONTEXT_DECORATION' && /already defined/.test(error.message),
    )
  })

  it('refuses a name the class has', () => {
    assert.throws(() => HttpContext.decorate('receivedAt', { get: () => 1 }), /ctx\.receivedAt is already defined/)
    assert.throws(() => HttpContext.decorate('session', { get: () => undefined as never }), /ctx\.session is already defined/)
  })

  it('refuses a property whose requirement was not added first', () => {
    assert.throws(
      () => HttpContext.decorate('needsMissing', { get: () => 'x' }, { requires: ['session', 'organization'] }),
      /ctx\.needsMissing needs ctx\.organization, which is not defined/,
    )
    assert.equal(HttpContext.isDecorated('needsMissing'), false)
  })
})
