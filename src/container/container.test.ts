import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Container } from './container.js'
import { FrameworkError } from '../foundation/framework-error.js'

describe('Container', () => {
  it('bind stores a value as is', () => {
    const c = new Container().bind('routes.location', 'routes/web')
    assert.equal(c.make('routes.location'), 'routes/web')
    assert.equal(c.has('routes.location'), true)
  })

  it('singleton builds once, lazily', () => {
    let built = 0
    const c = new Container().singleton('svc', () => ({ n: ++built }))
    assert.equal(built, 0)
    assert.equal(c.make('svc'), c.make('svc'))
    assert.equal(built, 1)
  })

  it('factory builds on every make', () => {
    let built = 0
    const c = new Container().factory('svc', () => ++built)
    c.make('svc')
    c.make('svc')
    assert.equal(built, 2)
  })

  it('make of an unbound key throws a FrameworkError naming it; get falls back', () => {
    const c = new Container()
    assert.throws(() => c.make('nope'), (e: unknown) => e instanceof FrameworkError && /"nope"/.test(e.message))
    assert.equal(c.get('nope', 5), 5)
  })
})
