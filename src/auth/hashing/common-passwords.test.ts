import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PREBUILT_COMMON_PASSWORDS, commonPasswordsHeader, extractCommonPasswords, isCommonPassword, loadCommonPasswords } from './common-passwords.js'

describe('the common-password list', () => {
  it('is read from the package build when it holds a whole list, else from the package', () => {
    const extracted = extractCommonPasswords()
    // npm test builds the package first: its dist/ holds the list, exactly as the package gives it.
    assert.ok(existsSync(PREBUILT_COMMON_PASSWORDS), `${PREBUILT_COMMON_PASSWORDS} was built`)
    assert.equal(loadCommonPasswords(), extracted)
    const dir = mkdtempSync(join(tmpdir(), 'trowel-common-passwords-'))
    try {
      const file = join(dir, 'common-passwords.txt')
      const whole = Array.from({ length: 10_000 }, (_, i) => `prebuilt${i}`).join('\n')
      writeFileSync(file, `${commonPasswordsHeader()}\n${whole}`)
      assert.equal(loadCommonPasswords(file), whole, 'this version: the file is used')
      writeFileSync(file, `# @zxcvbn-ts/language-common@4.9.0 passwords-common\n${whole}`)
      assert.equal(loadCommonPasswords(file), whole, 'another version: the file is used')
      writeFileSync(file, `${commonPasswordsHeader()}\nprebuilt\nlist`)
      assert.equal(loadCommonPasswords(file), extracted, 'a truncated list: taken from the package')
      writeFileSync(file, `# some-other-list@1.0.0 passwords-common\n${whole}`)
      assert.equal(loadCommonPasswords(file), extracted, 'another header: taken from the package')
      assert.equal(loadCommonPasswords(join(dir, 'missing.txt')), extracted, 'no file: taken from the package')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('holds each entry once, lower-cased, one a line', () => {
    const entries = extractCommonPasswords().split('\n')
    assert.ok(entries.length >= 10_000, `${entries.length} entries`)
    assert.equal(new Set(entries).size, entries.length)
    assert.ok(entries.every((entry) => entry !== '' && entry === entry.toLowerCase()))
  })

  it('matches whole entries only: not a part of one, nor two entries across a line break', () => {
    const entries = extractCommonPasswords().split('\n')
    const [first, second] = entries
    const all = new Set(entries)
    const longer = entries.find((entry) => entry.length > 8 && !all.has(entry.slice(1)) && !all.has(entry.slice(0, -1)))!
    assert.equal(isCommonPassword(first!), true)
    assert.equal(isCommonPassword(second!.toUpperCase()), true, 'case-insensitive')
    assert.equal(isCommonPassword(longer), true)
    assert.equal(isCommonPassword(longer.slice(1)), false, 'the end of an entry')
    assert.equal(isCommonPassword(longer.slice(0, -1)), false, 'the start of an entry')
    assert.equal(isCommonPassword(`${first}\n${second}`), false, 'two entries')
    assert.equal(isCommonPassword(`${first}\r`), false)
    assert.equal(isCommonPassword(''), false)
    assert.equal(isCommonPassword('password'), true)
    assert.equal(isCommonPassword('correct horse battery staple and more'), false)
  })
})
