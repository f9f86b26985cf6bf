import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { PasswordPolicy, PASSWORD_MESSAGES, commonPasswords } from './index.js'

const policy = new PasswordPolicy()

describe('PasswordPolicy', () => {
  it('uses the exact messages', () => {
    assert.equal(PASSWORD_MESSAGES.tooShort, 'The password must be at least 8 characters.')
    assert.equal(PASSWORD_MESSAGES.tooLong, 'The password must not be longer than 1024 characters.')
    assert.equal(PASSWORD_MESSAGES.tooCommon, 'This password is too common. Please choose another one.')
  })

  it('rejects common passwords, ignoring case', () => {
    for (const password of ['password', '12345678', 'Password', 'PASSWORD', 'qwertyuiop', 'iloveyou', 'sunshine', 'football']) {
      assert.equal(policy.check(password), PASSWORD_MESSAGES.tooCommon, password)
    }
  })

  it('loads a list of at least 10,000 common passwords', () => {
    assert.ok(commonPasswords().size >= 10_000, `${commonPasswords().size} entries`)
    assert.ok(commonPasswords().has('password'))
  })

  it('rejects passwords shorter than 8 characters', () => {
    assert.equal(policy.check(''), PASSWORD_MESSAGES.tooShort)
    assert.equal(policy.check('x7#kq2p'), PASSWORD_MESSAGES.tooShort)
    assert.equal(policy.check('😀😀😀😀😀😀😀'), PASSWORD_MESSAGES.tooShort, '7 characters in 14 UTF-16 units')
    assert.equal(policy.check(undefined as unknown as string), PASSWORD_MESSAGES.tooShort)
  })

  it('rejects passwords longer than 1024 characters', () => {
    assert.equal(policy.check('x'.repeat(1025)), PASSWORD_MESSAGES.tooLong)
    assert.equal(policy.check('x'.repeat(1_000_000)), PASSWORD_MESSAGES.tooLong)
    assert.equal(policy.check('xk'.repeat(512)), null, 'exactly 1024')
  })

  it('accepts random passwords with no composition rules', () => {
    assert.equal(policy.check(randomBytes(9).toString('base64url')), null)
    assert.equal(policy.check('correct horse battery staple'), null)
    assert.equal(policy.check('alllowercaseletters'), null)
    assert.equal(policy.check('x7#kq2pz'), null, 'exactly 8')
  })
})
