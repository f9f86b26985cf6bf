import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Session } from './index.js'

describe('Session', () => {
  it('puts, gets, forgets and reports dirtiness', () => {
    const s = new Session('id')
    assert.equal(s.isDirty, false)
    assert.equal(s.get('missing', 'fallback'), 'fallback')
    s.put('a', 1)
    assert.equal(s.isDirty, true)
    assert.equal(s.get('a'), 1)
    assert.equal(s.has('a'), true)
    s.forget('a')
    assert.equal(s.has('a'), false)
    assert.deepEqual(s.all(), {})
  })

  it('flashInput drops passwords and CSRF fields and keeps only scalar values', () => {
    const s = new Session('id')
    s.flashInput({ name: 'Ann', email: 'a@b.co', password: 'x', password_confirmation: 'y', current_Password: 'z', _token: 't', __token: 't', obj: { a: 1 } })
    const next = new Session('id', s.toData())
    assert.equal(next.old('name'), 'Ann')
    assert.equal(next.old('email'), 'a@b.co')
    for (const key of ['password', 'password_confirmation', 'current_Password', '_token', '__token', 'obj']) {
      assert.equal(next.old(key, 'none'), 'none', key)
    }
  })

  it('token() creates a 32-byte base64url token once', () => {
    const s = new Session('id')
    const t = s.token()
    assert.match(t, /^[A-Za-z0-9_-]{43}$/)
    assert.equal(s.token(), t)
    assert.equal(Buffer.from(t, 'base64url').length, 32)
  })

  it('errors() is {} when nothing was flashed', () => {
    assert.deepEqual(new Session('id').errors(), {})
  })
})
